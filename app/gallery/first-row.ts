/** The phone layout's column count in gallery.css (tablets and desktops show 3 and 4). */
const PHONE_COLUMNS = 2
/** A card's caption and buttons, in column widths (about 90 px under a 180-280 px image). */
const CARD_CHROME = 0.4
/**
 * How far down its column a card may start and still show on a phone's first screen, in column
 * widths: the grid begins about 380 px down a 412 x 823 screen (Lighthouse's phone), whose columns
 * are 176 px wide, so about 2.5 widths of grid show.
 */
const PHONE_FIRST_SCREEN = 2.5

export type ImageLoading = 'high' | 'lazy'

/**
 * How each card's image loads. The cards on a phone's first screen (the top of each of its two
 * columns and what follows them within PHONE_FIRST_SCREEN) load at once with fetchpriority=high:
 * the largest of them is the page's LCP, and a lazy one is only requested after layout. The rest
 * load lazily, the tops of a wider layout's other columns too: on a phone those are below the
 * screen, and an eager image there shares a slow connection with the first screen's (Chrome gives
 * the first few images of a page a raised priority whatever their place), while on a tablet or
 * desktop a lazy image on the screen is requested at the first layout. The grid is CSS columns,
 * which the browser balances, so the server cannot know which card tops a column; this follows the
 * browser's rule (the shortest height into which the cards fit, in order and unbroken) with each
 * card's known aspect ratio.
 */
export function imageLoading(images: ReadonlyArray<{ width: number; height: number }>): ImageLoading[] {
  const heights = images.map((image) => image.height / image.width + CARD_CHROME)
  const loading = images.map((): ImageLoading => 'lazy')
  for (const index of phoneFirstScreen(heights)) loading[index] = 'high'
  return loading
}

/** The cards of the phone layout that start within PHONE_FIRST_SCREEN of their column's top. */
function phoneFirstScreen(heights: number[]): number[] {
  const starts = columnStarts(heights, PHONE_COLUMNS)
  return starts.flatMap((start, column) => {
    const end = starts[column + 1] ?? heights.length
    const shown: number[] = []
    for (let index = start, top = 0; index < end && top < PHONE_FIRST_SCREEN; top += heights[index], index++) {
      shown.push(index)
    }
    return shown
  })
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
