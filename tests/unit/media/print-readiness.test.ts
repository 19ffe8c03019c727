import { printReadiness, printSentence } from '#domain/media/print-readiness.ts'

test('a standard 1024 px portrait: 3.4 in at 300 DPI, too small for any standard print', () => {
  const print = printReadiness(1024, 1024)
  expect(print).toEqual({
    widthPx: 1024,
    heightPx: 1024,
    inchesAt300: { width: 3.4, height: 3.4 },
    // 1024 / 300 × 2.54 = 8.67 cm, kept at 8.6 (a maximum is rounded down)
    cmAt300: { width: 8.6, height: 8.6 },
    largestPrint: { sharp: null, good: null },
  })
  expect(printSentence(print)).toBe('Prints sharp only up to 3.4×3.4 in (8.6×8.6 cm), smaller than a 4×6 in print.')
})

test('4096 px (Gemini 4K, local HD): sharp up to 8×10 (11×14 needs 4200 px), good up to 16×20 at 200 DPI', () => {
  const print = printReadiness(4096, 4096)
  expect(print.inchesAt300).toEqual({ width: 13.6, height: 13.6 })
  expect(print.cmAt300).toEqual({ width: 34.6, height: 34.6 })
  expect(print.largestPrint).toEqual({
    sharp: { name: '8×10', inches: { width: 8, height: 10 }, cm: { width: 20, height: 25 }, needsCrop: true },
    good: { name: '16×20', inches: { width: 16, height: 20 }, cm: { width: 41, height: 51 }, needsCrop: true },
  })
  expect(printSentence(print)).toBe(
    'Prints sharp up to 8×10 in (20×25 cm), cropped to shape; good at 200 DPI up to 16×20 in (41×51 cm), cropped to shape.',
  )
})

test('2880 px (gpt-image-2 HD): sharp up to 5×7 (8×10 needs 3000 px), good up to 11×14', () => {
  const { largestPrint } = printReadiness(2880, 2880)
  expect(largestPrint.sharp?.name).toBe('5×7')
  expect(largestPrint.good?.name).toBe('11×14')
})

test('exact thresholds: 1200×1800 is exactly a sharp 4×6 with no crop; one pixel less is not', () => {
  expect(printReadiness(1200, 1800).largestPrint.sharp).toEqual({
    name: '4×6',
    inches: { width: 4, height: 6 },
    cm: { width: 10, height: 15 },
    needsCrop: false,
  })
  expect(printReadiness(1199, 1800).largestPrint.sharp).toBeNull()
})

test('a landscape image prints landscape, in either orientation', () => {
  const { largestPrint } = printReadiness(3840, 2160)
  // 300 DPI: 5×7 fits (2100×1500); 8×10 needs 2400 on the short side
  expect(largestPrint.sharp).toMatchObject({
    name: '5×7',
    inches: { width: 7, height: 5 },
    cm: { width: 18, height: 13 },
  })
  // 200 DPI: 8×10 (2000×1600) fits; 11×14 needs 2200 on the short side
  expect(largestPrint.good).toMatchObject({ name: '8×10', inches: { width: 10, height: 8 } })
  expect(printReadiness(2160, 3840).largestPrint.sharp?.inches).toEqual({ width: 5, height: 7 })
})
