// Flat config shared by every package: typescript-eslint's type-checked rules over src and tests.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.turbo/**', '**/coverage/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      '@typescript-eslint/no-unnecessary-condition': 'off',
      '@typescript-eslint/consistent-type-imports': 'error',
      // Owning the tools/call path means using the SDK's low-level Server, which the SDK marks
      // deprecated in favour of McpServer (which cannot take raw JSON Schemas). The logging
      // capability (deprecated by protocol revision 2026-07-28, still in the spec) is served for
      // 2025-era clients and the official suite.
      '@typescript-eslint/no-deprecated': [
        'error',
        {
          allow: [
            { from: 'package', package: '@modelcontextprotocol/sdk', name: 'Server' },
            { from: 'package', package: '@modelcontextprotocol/server', name: 'Server' },
            { from: 'package', package: '@modelcontextprotocol/server', name: 'LoggingLevel' },
            { from: 'package', package: '@modelcontextprotocol/server', name: 'sendLoggingMessage' },
            // a 2025-era session's negotiated version, which http-host serves its requests under
            { from: 'package', package: '@modelcontextprotocol/server', name: 'getNegotiatedProtocolVersion' },
            { from: 'package', package: '@modelcontextprotocol/client', name: 'LoggingMessageNotification' },
            { from: 'package', package: '@modelcontextprotocol/client', name: 'setLoggingLevel' },
          ],
        },
      ],
    },
  },
  {
    // Small functions and no module-level mutable state in shipped code. Blank lines and comments
    // count: a function is read with them.
    files: ['packages/*/src/**/*.ts', 'contract/src/**/*.ts', 'conformance/src/**/*.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: false, skipComments: false }],
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "Program > VariableDeclaration[kind!='const'], Program > ExportNamedDeclaration > VariableDeclaration[kind!='const']",
          message: 'No module-level mutable state: own it per instance or pass it explicitly.',
        },
        {
          // a module-level collection is shared by every server in the process: typed read-only,
          // it cannot become a cache or a registry that one server fills for all
          selector: [
            'Program > VariableDeclaration > VariableDeclarator',
            'Program > ExportNamedDeclaration > VariableDeclaration > VariableDeclarator',
          ]
            .map(
              (declarator) =>
                `${declarator}[init.type='NewExpression'][init.callee.name=/^(Map|Set|WeakMap|WeakSet|Array)$/]:not([id.typeAnnotation.typeAnnotation.typeName.name=/^Readonly(Map|Set)$/])`,
            )
            .join(', '),
          message: 'No module-level mutable state: type a module-level Map or Set ReadonlyMap or ReadonlySet.',
        },
        {
          // a `g` or `y` regular expression keeps `lastIndex` between calls: shared state
          selector: [
            'Program > VariableDeclaration > VariableDeclarator',
            'Program > ExportNamedDeclaration > VariableDeclaration > VariableDeclarator',
          ]
            .flatMap((declarator) => [
              `${declarator} > Literal[regex.flags=/[gy]/]`,
              `${declarator} > ArrayExpression > Literal[regex.flags=/[gy]/]`,
              `${declarator} > NewExpression[callee.name='RegExp'][arguments.1.value=/[gy]/]`,
            ])
            .join(', '),
          message: 'No module-level mutable state: a module-level g or y regular expression shares its lastIndex.',
        },
      ],
    },
  },
  {
    files: ['**/test/**/*.ts', '**/bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
);
