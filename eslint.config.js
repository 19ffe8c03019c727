import js from '@eslint/js'
import react from 'eslint-plugin-react'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  {
    ignores: [
      'build/**',
      'public/build/**',
      '.cache/**',
      '.data/**',
      'tests/.tmp/**',
      'test-results/**',
      'playwright-report/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    plugins: { react, 'react-hooks': reactHooks },
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    settings: { react: { version: 'detect' } },
    rules: {
      ...react.configs.recommended.rules,
      ...react.configs['jsx-runtime'].rules,
      ...reactHooks.configs.recommended.rules,
      'react/prop-types': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  // Dependencies point one way: routes → features → infrastructure (app/utils); the worker may use
  // the web's domain, the web never the worker (docs/architecture.md).
  ...layer('app/**/*.{ts,tsx}', ['\\#worker/*', '**/worker/*'], 'the web never imports the worker'),
  ...layer(
    'app/utils/**/*.{ts,tsx}',
    [
      '\\#worker/*',
      '**/worker/*',
      '\\#app/features/*',
      '\\#app/routes/*',
      '\\#app/components/*',
      '\\#app/hooks/*',
      '\\#app/root.tsx',
    ],
    'app/utils is infrastructure: it imports no feature, route or component',
  ),
  ...layer(
    'app/features/**/*.{ts,tsx}',
    ['\\#worker/*', '**/worker/*', '\\#app/routes/*', '\\#app/components/*', '\\#app/hooks/*', '\\#app/root.tsx'],
    'features are the domain: they import infrastructure, never routes or components',
  ),
)

// Patterns are gitignore-style, where a leading # starts a comment: hence the escaped '\\#'.
function layer(files, forbidden, message) {
  return [
    { files: [files], rules: { 'no-restricted-imports': ['error', { patterns: [{ group: forbidden, message }] }] } },
  ]
}
