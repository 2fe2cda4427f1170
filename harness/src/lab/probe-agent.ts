/**
 * The lab's side of probe.mjs: one agent process per namespace, asked to measure over its stdin
 * (one JSON line a request, answered with one line carrying the same id), so a measurement costs
 * no process start on a loaded machine.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';

export const PROBE_SCRIPT = join(import.meta.dirname, 'probe.mjs');
export const PROBE_PORT = 5201;

export type ProbeOperation = 'whoami' | 'down' | 'up' | 'udp' | 'udp-count';

/** What an agent answers, by operation. */
export const whoamiReply = z.object({ address: z.string() });
export const transferReply = z.object({ bytes: z.number(), ms: z.number(), kbit: z.number() });
export const udpReply = z.object({ sent: z.number(), burst: z.string() });
export const udpCountReply = z.object({ received: z.number() });

const answer = z.object({ id: z.number(), error: z.string().optional() }).loose();

export class ProbeAgent {
  private nextId = 1;
  private readonly waiting = new Map<number, (reply: z.infer<typeof answer>) => void>();

  private constructor(private readonly child: ChildProcess) {}

  /** Waits for the agent's "ready" (bounded), then routes its answers to their requests. */
  static start(child: ChildProcess, what: string, timeoutMs = 10_000): Promise<ProbeAgent> {
    const agent = new ProbeAgent(child);
    return new Promise((resolve, reject) => {
      let stderr = '';
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const fail = (why: string) => {
        clearTimeout(timer);
        child.kill('SIGKILL');
        reject(new Error(`${what}: ${why}\n${stderr}`));
      };
      const timer = setTimeout(() => fail(`not ready in ${timeoutMs} ms`), timeoutMs);
      child.once('exit', (status) => fail(`exited (${status})`));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (line.trim() === 'ready') {
          clearTimeout(timer);
          resolve(agent);
          return;
        }
        const parsed = answer.safeParse(safeJson(line));
        if (parsed.success) agent.waiting.get(parsed.data.id)?.(parsed.data);
      });
    });
  }

  /** Asks the agent to measure against `host`; throws with the agent's reason if it could not. */
  async request<T>(
    op: ProbeOperation,
    reply: z.ZodType<T>,
    host: string,
    count = 0,
    burst = '',
    timeoutMs = 20_000,
  ): Promise<T> {
    const id = this.nextId++;
    const answered = await new Promise<z.infer<typeof answer>>((resolve, reject) => {
      // The agent answers within timeoutMs; this bound is for an agent that died.
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`probe ${op} to ${host}: no answer in ${timeoutMs + 2_000} ms`));
      }, timeoutMs + 2_000);
      this.waiting.set(id, (line) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(line);
      });
      this.child.stdin?.write(
        `${JSON.stringify({ id, op, host, port: PROBE_PORT, count, burst, timeoutMs })}\n`,
      );
    });
    if (answered.error !== undefined) throw new Error(`probe ${op} to ${host}: ${answered.error}`);
    return reply.parse(answered);
  }
}

function safeJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
