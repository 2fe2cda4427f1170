/**
 * What a Chromium trace (`browser.startTracing`, devtools.timeline) says the page's main thread did
 * between two instants: how long it was busy, and with what, by the kind of work each task began
 * with (script, style, layout, paint, hit tests, ...). The join part traces one click with it.
 */
import { readFileSync } from 'node:fs';

interface TraceEvent {
  name: string;
  ph: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  args?: { name?: string; data?: { type?: string } };
}

/**
 * The kinds a main-thread task's time is counted under, by the trace events inside it: each event
 * of these counts its own time (less that of the events of these inside it); what no event of
 * these covers is `other` (the scheduler's own, V8 outside a call, ...).
 */
const KINDS: Record<string, string> = {
  'Receive mojo message': 'messages (socket, WebRTC, network)',
  'SimpleWatcher::OnHandleReady': 'messages (socket, WebRTC, network)',
  BlinkScheduler_PerformMicrotaskCheckpoint: 'script',
  HandlePostMessage: 'script',
  'V8.GCScavenger': 'gc',
  'V8.GCCompactor': 'gc',
  'V8.GCFinalizeMC': 'gc',
  ParseAuthorStyleSheet: 'style',
  ImageDecodeTask: 'image decode',
  FunctionCall: 'script',
  EvaluateScript: 'script',
  'v8.compile': 'script',
  EventDispatch: 'script',
  TimerFire: 'script',
  FireAnimationFrame: 'script',
  RunMicrotasks: 'script',
  'V8.GC_MC_BACKGROUND_MARKING': 'gc',
  MinorGC: 'gc',
  MajorGC: 'gc',
  UpdateLayoutTree: 'style',
  Layout: 'layout',
  HitTest: 'hit test',
  Paint: 'paint',
  PrePaint: 'paint',
  Layerize: 'paint',
  UpdateLayer: 'paint',
  Commit: 'paint',
  'Decode Image': 'image decode',
  'Decode LazyPixelRef': 'image decode',
  ParseHTML: 'parse',
  ResourceReceivedData: 'network',
  ResourceReceiveResponse: 'network',
  ResourceFinish: 'network',
};

export interface MainThreadSummary {
  windowMs: number;
  busyMs: number;
  longestTaskMs: number;
  byKind: Record<string, number>;
}

/**
 * The main thread of the renderer that dispatched the `click` (the page's), from that click's
 * dispatch for `windowMs`.
 */
export function summarizeClickTrace(path: string, windowMs: number): MainThreadSummary | undefined {
  const trace = JSON.parse(readFileSync(path, 'utf8')) as { traceEvents: TraceEvent[] };
  const events = trace.traceEvents;
  const click = events.find((e) => e.name === 'EventDispatch' && e.args?.data?.type === 'click');
  if (!click) return undefined;
  const onThread = events.filter((e) => e.pid === click.pid && e.tid === click.tid && e.ph === 'X');
  const start = click.ts;
  const end = start + windowMs * 1000;
  const tasks = onThread.filter(
    (e) => e.name === 'RunTask' && e.ts + (e.dur ?? 0) > start && e.ts < end,
  );
  const byKind: Record<string, number> = {};
  let busyMs = 0;
  let longestTaskMs = 0;
  for (const task of tasks) {
    const from = Math.max(task.ts, start);
    const to = Math.min(task.ts + (task.dur ?? 0), end);
    const ms = (to - from) / 1000;
    busyMs += ms;
    longestTaskMs = Math.max(longestTaskMs, ms);
    // The task's time goes to the kinds of work inside it, each event by its own time.
    const inside = onThread.filter(
      (e) => e !== task && e.ts >= task.ts && e.ts < task.ts + (task.dur ?? 0) && e.name in KINDS,
    );
    const clipped = (e: TraceEvent) =>
      Math.max(0, (Math.min(e.ts + (e.dur ?? 0), end) - Math.max(e.ts, start)) / 1000);
    const contains = (outer: TraceEvent, inner: TraceEvent) =>
      outer !== inner &&
      outer.ts <= inner.ts &&
      outer.ts + (outer.dur ?? 0) >= inner.ts + (inner.dur ?? 0) &&
      (outer.dur ?? 0) >= (inner.dur ?? 0);
    let counted = 0;
    for (const event of inside) {
      // Its direct children: inside it, and inside nothing else inside it.
      const children = inside.filter(
        (other) =>
          contains(event, other) &&
          !inside.some((middle) => contains(event, middle) && contains(middle, other)),
      );
      const own = clipped(event) - children.reduce((sum, child) => sum + clipped(child), 0);
      if (own <= 0) continue;
      const kind = KINDS[event.name] ?? 'other';
      byKind[kind] = (byKind[kind] ?? 0) + own;
      counted += own;
    }
    byKind.other = (byKind.other ?? 0) + Math.max(0, ms - counted);
  }
  return { windowMs, busyMs, longestTaskMs, byKind };
}

export function describeSummary(summary: MainThreadSummary): string {
  const kinds = Object.entries(summary.byKind)
    .filter(([, ms]) => ms >= 1)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, ms]) => `${kind} ${Math.round(ms)}`)
    .join(', ');
  return (
    `main thread busy ${Math.round(summary.busyMs)} of the ${Math.round(summary.windowMs)} ms ` +
    `from the click to the first frame (longest task ${Math.round(summary.longestTaskMs)} ms; ${kinds})`
  );
}
