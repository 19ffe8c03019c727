import { assertPlainText, findControlCharacterField, isPlainText } from '#app/utils/text-input.ts'

test('tab, line breaks and every printable character are plain text', () => {
  expect(isPlainText('Rex\tthe dog\r\nsecond line\n')).toBe(true)
  expect(isPlainText('狗 🐶 é ß — “quotes”')).toBe(true)
})

test.each(['\u0000', '\u0001', '\u0008', '\u000b', '\u000c', '\u001b', '\u007f', '\u0085', '\u009f', '\ud800'])(
  '%j is not plain text',
  (bad) => {
    expect(isPlainText(`a${bad}b`)).toBe(false)
  },
)

test('names the offending field, however deep, in objects, arrays, FormData and query strings', () => {
  expect(findControlCharacterField({ name: 'ok', nested: { deeper: [{ note: 'x\u0000' }] } })).toBe('note')
  expect(findControlCharacterField({ list: ['fine', 'bad\u0007'] })).toBe('list')
  const form = new FormData()
  form.append('transactionId', 'tx\u0000')
  form.append('screenshot', new Blob([new Uint8Array([0, 0, 0])]), 'shot.png')
  expect(findControlCharacterField(form)).toBe('transactionId')
  expect(findControlCharacterField(new URLSearchParams({ page: '1\u0000' }))).toBe('page')
  expect(findControlCharacterField({ 'bad\u0000key': 'value' })).toBe('body')
  expect(findControlCharacterField({ all: 'fine', n: 1, b: true, empty: null })).toBeNull()
})

test('a deeply nested body is walked without overflowing the stack', () => {
  let deep: unknown = 'end\u0000'
  for (let i = 0; i < 100_000; i++) deep = [deep]
  expect(findControlCharacterField({ deep })).toBe('deep')
})

test('assertPlainText throws a 400 naming the field, with the name itself made printable', () => {
  expect(() => assertPlainText({ email: 'a\u0000@b.co' })).toThrow(
    expect.objectContaining({
      status: 400,
      message: 'The field "email" contains a control character, which is not allowed',
    }),
  )
  expect(() => assertPlainText({ ['k\u0000']: { x: 1 } })).toThrow(/The field "body"/)
})
