import js from '@eslint/js'
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript'
import importX from 'eslint-plugin-import-x'
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
  // No import circles, not even type-only ones: the root loader lives apart from root.tsx for that.
  {
    files: ['**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver()],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  // Dependencies point one way (docs/architecture.md): the web (app/) and the worker → the domain
  // (domain/) → platform/. The web and the worker never import each other.
  ...layer('app/**/*.{ts,tsx}', ['\\#worker/*', '**/worker/*'], 'the web never imports the worker'),
  ...layer(
    'worker/**/*.ts',
    ['\\#app/*', '**/app/*', '**/server/*'],
    'the worker uses the domain (#domain/*) and platform (#platform/*) only, never the web',
  ),
  ...layer(
    'domain/**/*.{ts,tsx}',
    ['\\#app/*', '**/app/*', '\\#worker/*', '**/worker/*', '**/server/*', '**/scripts/*'],
    'domain/ holds the rules both processes share: it imports platform/ and itself, never the web or the worker',
  ),
  ...layer(
    'platform/**/*.ts',
    ['\\#app/*', '**/app/*', '\\#domain/*', '**/domain/*', '\\#worker/*', '**/worker/*', '**/server/*', '**/scripts/*'],
    'platform/ is what every process shares: it imports no domain, app, worker, server or script module',
  ),
  ...layer(
    'server/**/*.ts',
    ['\\#app/*', '**/app/*', '\\#domain/*', '**/domain/*', '\\#worker/*', '**/worker/*'],
    'server/ reaches the app through the Remix build only (else the web would load it twice); it imports #platform/*',
  ),
  ...layer(
    'app/utils/**/*.{ts,tsx}',
    ['\\#worker/*', '**/worker/*', '\\#app/routes/*', '\\#app/components/*', '\\#app/root.tsx'],
    "app/utils holds the web's helpers: it imports the domain and platform, never a route or component",
  ),
)

// Patterns are gitignore-style, where a leading # starts a comment: hence the escaped '\\#'.
function layer(files, forbidden, message) {
  return [
    { files: [files], rules: { 'no-restricted-imports': ['error', { patterns: [{ group: forbidden, message }] }] } },
  ]
}
