/**
 * The benchmark's page probe (page/probe.ts, typed TS bundled by esbuild) as an init script for a
 * signed-in page: what it records is described there.
 */
import { bundleForPage } from '@tailcam/harness/page-scripts';
import type { BenchProbe, G2gSample } from '../page/probe';

export type { G2gSample };

/** The probe's record of the last click and what followed it (read once a click was made). */
export interface JoinMarks extends Pick<BenchProbe, 'firstFrameAt' | 'loadedDataAt' | 'marks'> {
  clickAt: number;
}

export async function pageProbe(loginToken: string): Promise<string> {
  const probe = await bundleForPage('bench/page/probe.ts');
  return `${probe}\n;window.TailcamBenchProbe.install(${JSON.stringify(loginToken)});\n`;
}
