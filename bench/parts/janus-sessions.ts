/**
 * The Janus comparison's sessions: session → first frame, ours against Janus, in
 * `--passes` passes of `--joins` rounds for each added load: none, and `--load=N` busy processes
 * of the bench's own when given (bench/lib/added-load.ts), so "load 0–1" and "load 4" come from
 * one command under the same outside load. Passes alternate which server goes first (and so do the
 * rounds within a pass) and which added load comes first. Each session is a fresh page (janus-comparison.ts
 * `Comparison.session`); glass to glass is sampled in the first pass without added load only (it
 * costs 2.7 s a session). Every figure carries the load average at its pass's start and end.
 */
import type { BrowserContext } from '@playwright/test';
import { addLoad } from '../lib/added-load';
import type { BenchContext } from '../lib/context';
import type { ServerKind } from '../lib/receive-only-viewers';
import type { BenchRow } from '../lib/result';
import { round } from '../lib/stats';
import { loadAverage } from '@tailcam/harness/load-average';
import { median, p95, quantile } from '@tailcam/harness/stats';
import type { Comparison, Session } from './janus-comparison';

/** How long the added load runs before a pass is timed (the spinners take a core each at once). */
const LOAD_SETTLE_MS = 2_000;
const WARM_UP_SESSIONS = 10;

export interface SessionPass {
  pass: number;
  addedLoad: number;
  first: ServerKind;
  load: { start: string; end: string };
  sessions: Record<ServerKind, Session[]>;
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

export async function sessionPasses(
  bench: BenchContext,
  comparison: Comparison,
): Promise<SessionPass[]> {
  const { joins, peerPasses: passes, addedLoad } = bench.options;
  const conditions = addedLoad > 0 ? [0, addedLoad] : [0];
  const contexts: Record<ServerKind, BrowserContext> = {
    ours: await comparison.context(false),
    janus: await comparison.context(false),
  };
  const measured: SessionPass[] = [];
  try {
    // Unrecorded sessions each first: Chromium's first decoder, Janus's first PLI path, and
    // V8's optimised code for our stage's join path (a stage that has run for a while has it).
    for (let warm = 0; warm < WARM_UP_SESSIONS; warm += 1) {
      for (const kind of ['ours', 'janus'] as const) {
        await comparison.session(contexts[kind], kind, false);
      }
    }
    for (let pass = 0; pass < passes; pass += 1) {
      const order = pass % 2 === 0 ? conditions : [...conditions].reverse();
      for (const added of order) {
        const spinners = added > 0 ? addLoad(added) : undefined;
        try {
          if (spinners) await sleep(LOAD_SETTLE_MS);
          const first: ServerKind = pass % 2 === 0 ? 'ours' : 'janus';
          const entry: SessionPass = {
            pass: pass + 1,
            addedLoad: added,
            first,
            load: { start: loadAverage(), end: '' },
            sessions: { ours: [], janus: [] },
          };
          const g2g = pass === 0 && added === 0;
          for (let index = 0; index < joins; index += 1) {
            const leader: ServerKind = (index % 2 === 0) === (first === 'ours') ? 'ours' : 'janus';
            const kinds: ServerKind[] = leader === 'ours' ? ['ours', 'janus'] : ['janus', 'ours'];
            for (const kind of kinds) {
              entry.sessions[kind].push(await comparison.session(contexts[kind], kind, g2g));
            }
          }
          entry.load.end = loadAverage();
          measured.push(entry);
          const firsts = (kind: ServerKind) => entry.sessions[kind].map((s) => s.firstFrameMs);
          console.log(
            `  sessions, pass ${entry.pass} of ${passes}, added load ${added}, ${first} first: ` +
              `ours ${round(median(firsts('ours')))} (p95 ${round(p95(firsts('ours')))}), Janus ` +
              `${round(median(firsts('janus')))} (p95 ${round(p95(firsts('janus')))}) ms, load ` +
              `${entry.load.start} → ${entry.load.end}`,
          );
        } finally {
          spinners?.stop();
        }
      }
    }
  } finally {
    await contexts.ours.close();
    await contexts.janus.close();
  }
  return measured;
}

/** The probe's marks in the order they come (median ms after the session was created). */
export function describeSteps(sessions: Session[]): string {
  const names = [...new Set(sessions.flatMap((session) => Object.keys(session.steps)))];
  const medians = names
    .map((name) => ({
      name,
      ms: median(sessions.map((s) => s.steps[name]).filter((ms): ms is number => ms !== undefined)),
      seen: sessions.filter((s) => s.steps[name] !== undefined).length,
    }))
    // A mark most sessions never reach (a message of a later stage) would only confuse.
    .filter((step) => step.seen >= sessions.length / 2);
  medians.push({
    name: 'first frame',
    ms: median(sessions.map((s) => s.firstFrameMs)),
    seen: sessions.length,
  });
  return medians
    .sort((a, b) => a.ms - b.ms)
    .map((step) => `${step.name} ${round(step.ms)}`)
    .join(', ');
}

const spread = (values: number[]) =>
  `${round(quantile(values, 0.25))}–${round(quantile(values, 0.75))}`;

/** One row per added load (session → first frame), then glass to glass from its pass. */
export function sessionRows(passes: SessionPass[], target = 0.6): BenchRow[] {
  const rows: BenchRow[] = [];
  for (const added of [...new Set(passes.map((pass) => pass.addedLoad))]) {
    const mine = passes.filter((pass) => pass.addedLoad === added);
    const all = (kind: ServerKind) => mine.flatMap((pass) => pass.sessions[kind]);
    const firsts = (kind: ServerKind) => all(kind).map((s) => s.firstFrameMs);
    const ours = median(firsts('ours'));
    const janus = median(firsts('janus'));
    const ratio = ours / janus;
    const perPass = mine.map((pass) => {
      const m = (kind: ServerKind) => median(pass.sessions[kind].map((s) => s.firstFrameMs));
      return (
        `pass ${pass.pass} (${pass.first} first, load ${pass.load.start.split(' ')[0]} → ` +
        `${pass.load.end.split(' ')[0]}): ${round(m('ours'))} / ${round(m('janus'))} ms, ratio ` +
        `${round(m('ours') / m('janus'), 2)}`
      );
    });
    rows.push({
      part: 'janus',
      what:
        `session → first frame, added load ${added}, ours / Janus, median (n=${firsts('ours').length}` +
        ` / ${firsts('janus').length}, ${mine.length} passes)`,
      target: `ratio ≤ ${target}`,
      median: `${round(ours)} / ${round(janus)} ms`,
      p95: `p95 ${round(p95(firsts('ours')))} / ${round(p95(firsts('janus')))} ms; ratio ${round(ratio, 2)}`,
      pass: ratio <= target,
      note:
        `${perPass.join('; ')}; p25–p75 ours ${spread(firsts('ours'))}, Janus ` +
        `${spread(firsts('janus'))} ms; steps (median ms after the session is created) ours: ` +
        `${describeSteps(all('ours'))}; Janus: ${describeSteps(all('janus'))}`,
    });
  }
  const sampled = passes.find((pass) => pass.sessions.ours.some((s) => s.g2g.length > 0));
  if (sampled) {
    const roundG2g = (kind: ServerKind) => sampled.sessions[kind].map((s) => median(s.g2g));
    const allG2g = (kind: ServerKind) => sampled.sessions[kind].flatMap((s) => s.g2g);
    const ours = median(roundG2g('ours'));
    const janus = median(roundG2g('janus'));
    rows.push({
      part: 'janus',
      what: `glass to glass, median of sessions, ours / Janus (pass ${sampled.pass}, added load ${sampled.addedLoad})`,
      target: 'ours ≤ 30 ms',
      median: `${round(ours)} / ${round(janus)} ms`,
      p95: `ratio ${round(ours / janus, 2)}`,
      pass: ours <= 30,
      note:
        `p25–p75 of session medians ours ${spread(roundG2g('ours'))}, Janus ` +
        `${spread(roundG2g('janus'))} ms; p95 of all frames ours ${round(p95(allG2g('ours')))} ` +
        `(${allG2g('ours').length} frames), Janus ${round(p95(allG2g('janus')))} ` +
        `(${allG2g('janus').length}); load ${sampled.load.start} → ${sampled.load.end}`,
    });
  }
  return rows;
}
