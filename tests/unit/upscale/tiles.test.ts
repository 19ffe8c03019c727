import { cutTile, placeTile, tilesOf } from '#worker/upscale/tiles.ts'

// The upscaler's tiling (decision 0047): tiles cover the picture once, each read with its context
// clipped at the edges, and cutting then placing every tile's own part puts the picture back.

test('tiles cover the picture once, edge tiles smaller, context clipped to the picture', () => {
  const tiles = tilesOf(300, 130, 128)
  expect(tiles.map(({ own }) => own)).toEqual([
    { x: 0, y: 0, width: 128, height: 128 },
    { x: 128, y: 0, width: 128, height: 128 },
    { x: 256, y: 0, width: 44, height: 128 },
    { x: 0, y: 128, width: 128, height: 2 },
    { x: 128, y: 128, width: 128, height: 2 },
    { x: 256, y: 128, width: 44, height: 2 },
  ])
  expect(tiles[0].read).toEqual({ x: 0, y: 0, width: 136, height: 130 })
  expect(tiles[1].read).toEqual({ x: 120, y: 0, width: 144, height: 130 })
  expect(tiles[5].read).toEqual({ x: 248, y: 120, width: 52, height: 10 })
})

test('each tile cut, its own part enlarged ×2 by pixel repetition and placed, gives the enlarged picture', () => {
  const width = 37
  const height = 23
  const rgb = Uint8Array.from({ length: width * height * 3 }, (_, i) => (i * 7919) % 256)
  const scale = 2
  const out = new Uint8Array(width * scale * height * scale * 3)
  for (const tile of tilesOf(width, height, 16)) {
    const part = cutTile(rgb, width, tile)
    expect(part).toHaveLength(tile.read.width * tile.read.height * 3)
    const enlarged = new Uint8Array(tile.own.width * scale * tile.own.height * scale * 3)
    for (let y = 0; y < tile.own.height * scale; y++) {
      for (let x = 0; x < tile.own.width * scale; x++) {
        const inRead =
          ((tile.own.y - tile.read.y + (y >> 1)) * tile.read.width + tile.own.x - tile.read.x + (x >> 1)) * 3
        enlarged.set(part.subarray(inRead, inRead + 3), (y * tile.own.width * scale + x) * 3)
      }
    }
    placeTile(out, width * scale, tile, scale, enlarged)
  }
  for (let y = 0; y < height * scale; y++) {
    for (let x = 0; x < width * scale; x++) {
      const from = ((y >> 1) * width + (x >> 1)) * 3
      expect([...out.subarray((y * width * scale + x) * 3, (y * width * scale + x) * 3 + 3)]).toEqual([
        ...rgb.subarray(from, from + 3),
      ])
    }
  }
})
