import { describe, expect, it } from 'vitest'
import { imageLoading } from '#app/gallery/first-row.ts'

const squares = (count: number) => Array.from({ length: count }, () => ({ width: 1000, height: 1000 }))
const indexesOf = (loading: string[], kind: string) =>
  loading.flatMap((value, index) => (value === kind ? [index] : []))

describe('imageLoading', () => {
  it('is empty for no cards; a single card is the first row', () => {
    expect(imageLoading([])).toEqual([])
    expect(imageLoading(squares(1))).toEqual(['high'])
  })

  it("gives the phone's first screen high priority and loads every other card lazily", () => {
    // 12 equal cards (1.4 widths with the caption): two columns of 6; a phone's first screen shows
    // two cards of each (tops at 0 and 1.4). The wider layouts' column tops (3, 4, 8, 9) are lazy too.
    const loading = imageLoading(squares(12))
    expect(indexesOf(loading, 'high')).toEqual([0, 1, 6, 7])
    expect(indexesOf(loading, 'lazy')).toEqual([2, 3, 4, 5, 8, 9, 10, 11])
  })

  it('follows the aspect ratios: a tall first card makes the second column start earlier', () => {
    // Two columns: the tall card (3.4 widths) alone, then three squares (4.2): no shorter split exists.
    // The tall card fills the first column's first screen; the second shows two squares.
    const loading = imageLoading([{ width: 1000, height: 3000 }, ...squares(3)])
    expect(indexesOf(loading, 'high')).toEqual([0, 1, 2])
  })
})
