/** Column counts of the masonry in gallery.css: phone, then tablet and desktop. */
const PHONE_COLUMNS = 2
const WIDER_COLUMNS = [3, 4]
/** A card's caption and buttons, in column widths (about 90 px under a 180-280 px image). */
const CARD_CHROME = 0.4

export type ImageLoading = 'high' | 'eager' | 'lazy'

/**
 * How each card's image loads. The cards that open a column of the masonry (its first row, on the
 * first screen) load at once: with fetchpriority=high on a phone's two columns, where bandwidth is
 * scarce and fewer images should share it, and eagerly at the wider layouts' columns. The rest
 * load lazily. The grid is CSS columns, which the browser balances, so the server cannot know which
 * card tops a column; this follows the browser's rule (the shortest height into which the cards
 * fit, in order and unbroken) with each card's known aspect ratio.
 */
export function imageLoading(images: ReadonlyArray<{ width: number; height: number }>): ImageLoading[] {
  const heights = images.map((image) => image.height / image.width + CARD_CHROME)
  const loading = images.map((): ImageLoading => 'lazy')
  for (const columns of WIDER_COLUMNS) {
    for (const index of columnStarts(heights, columns)) loading[index] = 'eager'
  }
  for (const index of columnStarts(heights, PHONE_COLUMNS)) loading[index] = 'high'
  return loading
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
