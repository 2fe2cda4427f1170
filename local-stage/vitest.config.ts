import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { importsReach, isolationProjects } from '../scripts/vitest-isolation';

/**
 * Tests whose bounds hold only with a core to themselves: real libwebrtc publishers (simulcast
 * cameras, whose encoders drop layers when starved of CPU) and frame-gap bounds. `npm test` runs
 * the others beside the other workspaces' tests (`TAILCAM_LOCAL_STAGE_TESTS=beside`), then these
 * with nothing else running, two files at a time, one a core (`=alone`), then `SOLO` (`=solo`).
 * `OTHER_LANE` runs in the other lane of `npm test`'s first step (`=other-lane`), not beside.
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

/**
 * Run by `npm test` in its first step's other lane (the type-check's, lint's and the other
 * workspaces' suites), where they even out the two lanes' ends: the local stage's suite is the
 * longer queue (docs/development.md#how-npm-test-spends-its-time).
 */
export const OTHER_LANE = ['src/recorder/recorder.test.ts'];

const phase = process.env.TAILCAM_LOCAL_STAGE_TESTS;
const exclude =
  phase === 'beside'
    ? [...LOAD_SENSITIVE, ...SOLO, ...OTHER_LANE, '**/node_modules/**']
    : ['**/node_modules/**'];
const ONLY: Record<string, string[]> = {
  alone: LOAD_SENSITIVE,
  solo: SOLO,
  'other-lane': OTHER_LANE,
};

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
    ...(phase !== undefined && phase in ONLY
      ? { include: ONLY[phase] }
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
