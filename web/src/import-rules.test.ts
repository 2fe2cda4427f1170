/**
 * The layer rules of eslint.config.js, run through ESLint itself on small files placed in the
 * app's folders: a broken import is an error, a fine one is not.
 */
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const repoRoot = join(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: repoRoot });

// Loading the config and its plugins takes seconds on a busy machine; not any one test's time.
beforeAll(() => eslint.calculateConfigForFile(join(repoRoot, 'web/src/main.tsx')), 60_000);

/** The messages of the import rules for `import { x } from '<source>'` written in `file`. */
async function importErrors(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(`import { x } from '${source}';\nexport { x };\n`, {
    filePath: join(repoRoot, file),
  });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId?.endsWith('no-restricted-imports'))
    .map((message) => message.message);
}

describe('the import rules between the web app layers', () => {
  it.each([
    ['web/src/features/player/components/probe.tsx', '@/features/auth/api/login', 'feature'],
    ['web/src/features/auth/api/probe.ts', '@/features/streams/data/streams', 'feature'],
    ['web/src/features/player/components/probe.tsx', '../../streams/data/streams', 'feature'],
    ['web/src/features/player/components/probe.tsx', '@/app/router', 'app shell'],
    ['web/src/lib/probe.ts', '@/features/player/lib/client-id', 'Shared code'],
    ['web/src/components/layout/probe.tsx', '@/app/routes/home', 'app shell'],
    ['web/src/config/probe.ts', '../features/player/lib/client-id', '@/ alias'],
    ['web/src/features/player/lib/probe.ts', '@/testing/fake-stage-sdk', 'Only tests'],
  ])('refuses, in %s, an import of %s', async (file, source, reason) => {
    const errors = await importErrors(file, source);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(reason);
  });

  it.each([
    ['web/src/app/routes/probe.tsx', '@/features/player/components/stream-player'],
    ['web/src/features/player/hooks/probe.ts', '@/features/player/lib/stage-session'],
    ['web/src/features/player/hooks/probe.ts', '../lib/stage-session'],
    ['web/src/features/player/components/probe.tsx', '@/lib/api-client'],
    ['web/src/lib/probe.ts', '@/config/ui-text'],
    ['web/src/features/player/components/probe.test.tsx', '@/testing/fake-stage-sdk'],
    ['web/src/testing/probe.tsx', '@/app/router'],
  ])('allows, in %s, an import of %s', async (file, source) => {
    expect(await importErrors(file, source)).toEqual([]);
  });
});
