// eslint with typescript-eslint's recommended type-checked rules over src/, test/, bench/ and scripts/.
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'src/http/openapi-types.ts', 'src/sim/protocol/messages.generated.ts', 'src/console/dist/**'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
);
