/**
 * The local stage's room rules of eslint.config.js (docs/decisions/0083-local-stage-rooms.md),
 * run through ESLint itself on small files placed in the rooms: an import that runs back up is an
 * error, one that points down is not.
 */
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const repoRoot = join(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: repoRoot });

// Loading the config and its plugins takes seconds on a busy machine; not any one test's time.
beforeAll(() => eslint.calculateConfigForFile(join(repoRoot, 'local-stage/src/main.ts')), 60_000);

/** The messages of the import rules for `import { x } from '<source>'` written in `file`. */
async function importErrors(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(`import { x } from '${source}';\nexport { x };\n`, {
    filePath: join(repoRoot, 'local-stage/src', file),
  });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId?.endsWith('no-restricted-imports'))
    .map((message) => message.message);
}

describe("the import rules between the local stage's rooms", () => {
  it.each([
    ['server/media/publisher/probe.ts', '../../sessions/admission', 'media/publisher'],
    ['server/media/viewer/probe.ts', '../../sessions/viewer-session', 'media/'],
    ['server/media/viewer/probe.ts', '../../http/sdp-endpoint', 'media/'],
    ['server/media/publisher/probe.ts', '../viewer/subscription', 'media/publisher'],
    ['server/media/transport/probe.ts', '../publisher/publisher', 'bottom rooms'],
    ['server/media/sdp/probe.ts', '../../stage/local-stage', 'bottom rooms'],
    ['server/sessions/probe.ts', '../stage/local-stage', 'sessions/'],
    ['server/sessions/probe.ts', '../http/sdp-endpoint', 'sessions/'],
    ['server/stage/probe.ts', '../http/http-server', 'stage/'],
    ['codecs/probe.ts', '../server/media/publisher/video-layers', 'src/codecs'],
    ['recorder/probe.ts', '../server/media/publisher/publisher', 'A process of its own'],
    ['thumbnails/probe.ts', '../server/stage/local-stage', 'A process of its own'],
    ['cameras/probe.ts', '../sdk/stage', 'A process of its own'],
  ])('refuses, in %s, an import of %s', async (file, source, reason) => {
    const errors = await importErrors(file, source);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(reason);
  });

  it.each([
    ['server/media/viewer/probe.ts', '../publisher/video-layers'],
    ['server/media/publisher/probe.ts', '../transport/peer-network'],
    ['server/media/publisher/probe.ts', '../../../codecs/vp8'],
    ['server/media/viewer/probe.ts', '../../../stage-log'],
    ['server/sessions/probe.ts', '../media/viewer/subscription'],
    ['server/stage/probe.ts', '../sessions/admission'],
    ['server/http/probe.ts', '../stage/local-stage'],
    ['recorder/probe.ts', '../codecs/rtp-frames'],
    ['thumbnails/probe.ts', '../whep-client'],
    ['server/media/publisher/probe.test.ts', '../../sessions/admission'],
  ])('allows, in %s, an import of %s', async (file, source) => {
    expect(await importErrors(file, source)).toEqual([]);
  });
});
