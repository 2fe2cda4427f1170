/**
 * The Grafana dashboard in the repository (docs/grafana/tailcam.json, docs/deployment.md's
 * Metrics section) asks only for what the metrics endpoint exposes: every metric of its panels'
 * queries is a family the endpoint answers (the API's and a real local stage's), every label it
 * selects or groups by is one the endpoint uses, and each query's brackets and quotes close.
 * (e2e/prometheus.spec.ts asks a real Prometheus the Viewers panel's query.)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { STREAM_IDS } from '@tailcam/protocol/streams';
import { startLocalStage, type RunningStage } from '@tailcam/local-stage/start';
import { repoRoot, stageTokenSecret, tempDir } from '../test/helpers';
import { ApiMetrics } from './api-metrics';
import { metricsText } from './metrics-server';

const dashboard = z
  .object({
    panels: z.array(
      z.object({
        title: z.string(),
        targets: z.array(z.object({ expr: z.string() })).min(1),
      }),
    ),
  })
  .parse(JSON.parse(readFileSync(join(repoRoot, 'docs/grafana/tailcam.json'), 'utf8')));

let stage: RunningStage;
let exposition: string;
let api: ApiMetrics;

beforeAll(async () => {
  stage = await startLocalStage({
    host: '127.0.0.1',
    port: 0,
    secret: stageTokenSecret,
    faultsEnabled: false,
  });
  api = new ApiMetrics({ aircraft: STREAM_IDS, recordingsDir: tempDir() });
  exposition = await metricsText({
    api,
    stage: { url: stage.url, secret: stageTokenSecret },
  });
});

afterAll(() => stage.close());

/** The families the endpoint exposes, by name, with their type. */
function families(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\w+) (\w+)$/gm)) found.set(name!, type!);
  return found;
}

/** The family a query's series name belongs to (a histogram's `_bucket`, `_count`, `_sum`). */
function familyOf(series: string, known: Map<string, string>): string | undefined {
  if (known.has(series)) return series;
  const base = series.replace(/_(bucket|count|sum)$/, '');
  return known.get(base) === 'histogram' ? base : undefined;
}

/** Whether every bracket and quote of a query closes, in order. */
function balanced(expr: string): boolean {
  const open: string[] = [];
  const pairs: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  let quoted = false;
  for (const char of expr) {
    if (char === '"') quoted = !quoted;
    else if (quoted) continue;
    else if ('([{'.includes(char)) open.push(char);
    else if (char in pairs && open.pop() !== pairs[char]) return false;
  }
  return !quoted && open.length === 0;
}

describe('the Grafana dashboard', () => {
  it('queries only the families and labels the metrics endpoint exposes', () => {
    const known = families(exposition);
    // Every label name of the API's and the stage's metrics (a family may have no sample yet).
    const labels = new Set(['le']);
    const labelled = z.object({ labelNames: z.array(z.string()) });
    for (const registry of [api.registry, stage.stage.metrics.registry]) {
      for (const metric of registry.getMetricsAsArray()) {
        for (const name of labelled.parse(metric).labelNames) labels.add(name);
      }
    }
    expect(dashboard.panels.length).toBeGreaterThan(10);
    for (const panel of dashboard.panels) {
      for (const { expr } of panel.targets) {
        expect(balanced(expr), `${panel.title}: ${expr}`).toBe(true);
        const series = [...expr.matchAll(/\btailcam_\w+/g)].map(([name]) => name);
        expect(series.length, `${panel.title}: ${expr}`).toBeGreaterThan(0);
        for (const name of series) {
          expect(familyOf(name, known), `${panel.title}: ${name}`).toBeDefined();
        }
        const used = [
          ...[...expr.matchAll(/(\w+)=~?"/g)].map(([, name]) => name!),
          ...[...expr.matchAll(/by \(([^)]*)\)/g)].flatMap(([, names]) =>
            names!.split(',').map((name) => name.trim()),
          ),
        ];
        for (const name of used) expect(labels, `${panel.title}: label ${name}`).toContain(name);
      }
    }
  });

  it('has a Viewers panel asking for each aircraft’s viewers, as the Prometheus test does', () => {
    const viewers = dashboard.panels.find((panel) => panel.title === 'Viewers');
    expect(viewers?.targets[0]?.expr).toBe('tailcam_aircraft_viewers{aircraft=~"$aircraft"}');
  });
});
