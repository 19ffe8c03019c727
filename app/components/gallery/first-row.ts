/** Column counts of the masonry in gallery.css (phone, tablet, desktop). */
const COLUMN_COUNTS = [2, 3, 4]
/** A card's caption and buttons, in column widths (about 90 px under a 180-280 px image). */
const CARD_CHROME = 0.4

/**
 * The cards that open a column of the masonry at any of its widths: its first row, whose images
 * are on the first screen. The grid is CSS columns, which the browser balances, so the server
 * cannot know which card tops a column; this follows the browser's rule (the shortest height
 * into which the cards fit, in order and unbroken) with each card's known aspect ratio.
 */
export function firstRowIndexes(images: ReadonlyArray<{ width: number; height: number }>): Set<number> {
  const heights = images.map((image) => image.height / image.width + CARD_CHROME)
  const first = new Set<number>(images.length > 0 ? [0] : [])
  for (const columns of COLUMN_COUNTS) {
    for (const index of columnStarts(heights, columns)) first.add(index)
  }
  return first
}

function columnStarts(heights: number[], columns: number): number[] {
  let low = Math.max(0, ...heights)
  let high = heights.reduce((sum, height) => sum + height, 0)
  // The balanced column height, to a hundredth of a column width.
  while (high - low > 0.01) {
    const middle = (low + high) / 2
    if (fill(heights, middle).length <= columns) high = middle
    else low = middle
  }
  return fill(heights, high).slice(0, columns)
}

/** Where each column starts when cards are poured in order into columns of `columnHeight`. */
function fill(heights: number[], columnHeight: number): number[] {
  const starts: number[] = []
  let used = Infinity
  heights.forEach((height, index) => {
    if (used + height > columnHeight) {
      starts.push(index)
      used = 0
    }
    used += height
  })
  return starts
}
