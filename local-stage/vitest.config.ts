import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { importsReach, isolationProjects } from '../scripts/vitest-isolation';

/**
 * Tests whose bounds hold only with a core to themselves: real libwebrtc publishers (simulcast
 * cameras, whose encoders drop layers when starved of CPU) and frame-gap bounds. `npm test` runs
 * the others beside the other workspaces' tests (`TAILCAM_LOCAL_STAGE_TESTS=beside`), then these
 * with nothing else running, two files at a time, one a core (`=alone`), then `SOLO` (`=solo`).
 * Unset, all run, one file at a time.
 */
export const LOAD_SENSITIVE = [
  'src/server/media/viewer/forwarding.test.ts',
  'src/server/media/publisher/key-frames.test.ts',
  'src/server/media/viewer/layer-choice.test.ts',
  'src/server/media/publisher/simulcast-camera.test.ts',
  'src/server/stage/local-stage.test.ts',
  'src/sdk/stage-layers.test.ts',
  'src/sdk/stage.test.ts',
];
/**
 * Alone, with the machine to itself, each beside another file once failed its bound: a libwebrtc
 * publisher's congestion control reads the stage's timing of its packets (decision 0066), and the
 * camera's key frame after a PLI (890 ms against 200, a fresh clone) waits for its encoder.
 */
export const SOLO = [
  'src/server/http/whip-congestion-feedback.test.ts',
  'src/cameras/camera-publisher-key-frame.test.ts',
];

const phase = process.env.TAILCAM_LOCAL_STAGE_TESTS;
const exclude =
  phase === 'beside' ? [...LOAD_SENSITIVE, ...SOLO, '**/node_modules/**'] : ['**/node_modules/**'];

export default defineConfig({
  test: {
    // WebRTC and camera tests share two cores with the other lane's work: files one at a time,
    // bounded; the load-sensitive ones two at a time with nothing else running.
    fileParallelism: phase === 'alone',
    maxWorkers: phase === 'alone' ? 2 : 1,
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Beside the other lane (and with no phase), the files that never load libwebrtc run one
    // after another in one process (import 6.8 s and 60 processes' starts, 16.8 → 4.3 s quiet).
    // A file that does stays in a process of its own: many files' libwebrtc peers in one
    // process crashed it (docs/development.md#how-npm-test-spends-its-time).
    ...(phase === 'alone' || phase === 'solo'
      ? { include: phase === 'alone' ? LOAD_SENSITIVE : SOLO }
      : {
          projects: isolationProjects({
            srcDir: fileURLToPath(new URL('./src', import.meta.url)),
            include: ['src/**/*.test.ts', 'scripts/**/*.test.ts'],
            testFile: /\.test\.ts$/,
            sharedName: 'no-libwebrtc',
            exclude,
            keepApart: (file) => importsReach(file, '@roamhq/wrtc'),
          }),
        }),
  },
});
