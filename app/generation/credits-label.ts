/** "1 credit", "2 credits": a price as the generation forms say it. */
export const credits = (cost: number) => `${cost} ${cost === 1 ? 'credit' : 'credits'}`
