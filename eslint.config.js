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
  // No import circles; root ⇄ its data hook (use-root-data) is Remix's usual shape and may stay.
  {
    files: ['**/*.{ts,tsx}'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver()],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  { files: ['app/root.tsx', 'app/hooks/use-root-data.ts'], rules: { 'import-x/no-cycle': 'off' } },
  // Dependencies point one way: routes → features → the web's helpers (app/utils) → platform/; the
  // worker may use the web's domain, the web never the worker (docs/architecture.md).
  ...layer('app/**/*.{ts,tsx}', ['\\#worker/*', '**/worker/*'], 'the web never imports the worker'),
  ...layer(
    'platform/**/*.ts',
    ['\\#app/*', '**/app/*', '\\#worker/*', '**/worker/*', '**/server/*', '**/scripts/*'],
    'platform/ is what every process shares: it imports no app, worker, server or script module',
  ),
  ...layer(
    'server/**/*.ts',
    ['\\#app/*', '**/app/*', '\\#worker/*', '**/worker/*'],
    'server/ reaches the app through the Remix build only (else the web would load it twice); it imports #platform/*',
  ),
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
