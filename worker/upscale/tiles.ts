/**
 * How a picture is cut into tiles for the upscaler's threads and put back together. Each tile is
 * read with up to CONTEXT pixels of its neighbours on every side and only its own part of the
 * enlarged result is kept, so the seams are computed with real context (decision 0036) and any
 * split of the tiles between threads gives the same picture.
 */

/** Pixels of context read around a tile, on each side where the picture has them. */
const CONTEXT = 8

interface Rect {
  x: number
  y: number
  width: number
  height: number
}

export interface Tile {
  /** The tile's own input pixels. */
  own: Rect
  /** What is read: the tile widened by the context, clipped to the picture. */
  read: Rect
}

/** The picture's tiles of `size` px (smaller at the right and bottom edges), row by row. */
export function tilesOf(width: number, height: number, size: number): Tile[] {
  const tiles: Tile[] = []
  for (let y = 0; y < height; y += size) {
    for (let x = 0; x < width; x += size) {
      const own = { x, y, width: Math.min(size, width - x), height: Math.min(size, height - y) }
      const readX = Math.max(0, x - CONTEXT)
      const readY = Math.max(0, y - CONTEXT)
      const read = {
        x: readX,
        y: readY,
        width: Math.min(width, x + own.width + CONTEXT) - readX,
        height: Math.min(height, y + own.height + CONTEXT) - readY,
      }
      tiles.push({ own, read })
    }
  }
  return tiles
}

/** The packed RGB of the tile's read region, out of the picture's (`width` px wide). */
export function cutTile(rgb: Uint8Array, width: number, { read }: Tile): Uint8Array {
  const part = new Uint8Array(read.width * read.height * 3)
  for (let row = 0; row < read.height; row++) {
    const from = ((read.y + row) * width + read.x) * 3
    part.set(rgb.subarray(from, from + read.width * 3), row * read.width * 3)
  }
  return part
}

/** Copies the tile's own part, enlarged `scale` times (packed RGB), into the enlarged picture. */
export function placeTile(out: Uint8Array, outWidth: number, { own }: Tile, scale: number, enlarged: Uint8Array) {
  const rowBytes = own.width * scale * 3
  for (let row = 0; row < own.height * scale; row++) {
    const to = ((own.y * scale + row) * outWidth + own.x * scale) * 3
    out.set(enlarged.subarray(row * rowBytes, (row + 1) * rowBytes), to)
  }
}
