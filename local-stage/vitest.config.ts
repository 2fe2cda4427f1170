import { defineConfig } from 'vitest/config';

/**
 * Tests whose bounds hold only with a core to themselves: real libwebrtc publishers (simulcast
 * cameras, congestion control, whose encoders drop layers when starved of CPU) and frame-gap
 * bounds. `npm test` runs the others beside the other workspaces' tests
 * (`TAILCAM_LOCAL_STAGE_TESTS=beside`) and these after them, alone (`=alone`); unset, all run.
 */
export const LOAD_SENSITIVE = [
  'src/server/http/whip-congestion-feedback.test.ts',
  'src/server/media/forwarding.test.ts',
  'src/server/media/key-frames.test.ts',
  'src/server/media/layer-choice.test.ts',
  'src/server/media/simulcast-camera.test.ts',
  'src/server/stage/local-stage.test.ts',
  'src/cameras/camera-publisher.test.ts',
  'src/sdk/stage-layers.test.ts',
  'src/sdk/stage.test.ts',
];

const phase = process.env.TAILCAM_LOCAL_STAGE_TESTS;

export default defineConfig({
  test: {
    include: phase === 'alone' ? LOAD_SENSITIVE : ['src/**/*.test.ts'],
    exclude:
      phase === 'beside' ? [...LOAD_SENSITIVE, '**/node_modules/**'] : ['**/node_modules/**'],
    // WebRTC and camera tests share two cores: run files one at a time, bounded.
    fileParallelism: false,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
