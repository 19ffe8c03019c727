import { describe, expect, it } from 'vitest'
import { firstRowIndexes } from '#app/components/gallery/first-row.ts'

const squares = (count: number) => Array.from({ length: count }, () => ({ width: 1000, height: 1000 }))

describe('firstRowIndexes', () => {
  it('is empty for no cards and only the first for one', () => {
    expect(firstRowIndexes([])).toEqual(new Set())
    expect(firstRowIndexes(squares(1))).toEqual(new Set([0]))
  })

  it('names the card that opens each column for two, three and four columns', () => {
    // 12 equal cards: columns of 6, 4 and 3 cards.
    expect([...firstRowIndexes(squares(12))].sort((a, b) => a - b)).toEqual([0, 3, 4, 6, 8, 9])
  })

  it('follows the aspect ratios: a tall first card makes the second column start earlier', () => {
    const cards = [{ width: 1000, height: 3000 }, ...squares(3)]
    // Two columns: the tall card (3.4) alone, then three squares (4.2): no shorter split exists.
    expect(firstRowIndexes(cards).has(1)).toBe(true)
  })
})
