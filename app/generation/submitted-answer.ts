/** The answer of an image submission (generate, re-roll, likeness fix): the spec's generate answer. */
export function submittedAnswer({ taskId, cost, credits }: { taskId: string; cost: number; credits: number }) {
  return { taskId, status: 'queued', type: 'image', creditCost: cost, credits, message: 'Task submitted' }
}
