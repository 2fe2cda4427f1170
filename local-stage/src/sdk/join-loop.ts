/**
 * The join loop (decision 0024, as LiveKit's Room.connect with its AbortController): while the
 * events endpoint cannot be reached, or closes before the stage answers, try again after 200 ms,
 * growing by half each time up to 2 s, each wait up to a quarter longer at random (a restarted
 * stage is not met by every viewer at once); after the join timeout (a minute by default) give up with
 * `[JOIN_ERROR] Operation timed out`. A refusal from the stage ends it at once. Aborting the
 * signal (`leave()`) ends an attempt or a wait at once with `CANCELED`, and nothing is tried after.
 */
import { backoffPolicy, type ReconnectPolicy } from '@tailcam/protocol/reconnect-policy';
import type { StageMessage } from '../signalling';
import { StageErrorCategory, StageErrorCode } from './enums';
import { ivsError, joinRefused, type StageError } from './errors';
import type { WantedMedia } from './session';
import { SignalSocket } from './signal-socket';

/** How long one attempt waits for the stage's answer to its join. */
const JOIN_ANSWER_TIMEOUT_MS = 10_000;
/** The waits between attempts; the join deadline, not an attempt count, ends the loop. */
export const JOIN_RETRY = { baseMs: 200, factor: 1.5, maxMs: 2_000, jitter: 0.25 } as const;

export type JoinedMessage = Extract<StageMessage, { type: 'joined' }>;
/** 'joined', a refusal (final), or 'retry'. */
export type JoinOutcome = 'joined' | 'retry' | StageError;
export type JoinAttempt = (deadline: number, signal: AbortSignal) => Promise<JoinOutcome>;

/** Runs attempts until one joins; rejects with the StageError that ends the loop. */
export async function joinWithRetries(
  attempt: JoinAttempt,
  timeoutMs: number,
  signal: AbortSignal,
  policy: ReconnectPolicy = backoffPolicy(JOIN_RETRY),
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const canceled = () => ivsError(StageErrorCode.CANCELED, StageErrorCategory.JOIN_ERROR);
  for (let attempts = 0; ; attempts += 1) {
    if (signal.aborted) throw canceled();
    const outcome = await attempt(deadline, signal);
    if (signal.aborted) throw canceled();
    if (outcome === 'joined') return;
    if (outcome !== 'retry') throw outcome;
    const delay = policy.nextDelayMs(attempts + 1);
    const wait = Math.min(delay ?? 0, deadline - Date.now());
    if (delay === null || wait <= 0) {
      throw ivsError(StageErrorCode.TIMEOUT, StageErrorCategory.JOIN_ERROR);
    }
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', wake);
        resolve();
      };
      const timer = setTimeout(wake, wait);
      signal.addEventListener('abort', wake);
    });
  }
}

/**
 * One attempt: opens the socket and sends the join, with the media of which the stage is to
 * offer its publishers along with `joined` (`offers`, when the app said). On `joined` hands the
 * socket over to `onJoined` in the same turn, so no later message can slip past the session;
 * otherwise closes it.
 */
export function joinOnce(
  eventsUrl: string,
  token: string,
  deadline: number,
  signal: AbortSignal,
  onJoined: (socket: SignalSocket, message: JoinedMessage) => void,
  offers?: WantedMedia & { standby?: true },
): Promise<JoinOutcome> {
  return new Promise((resolve) => {
    let socket: SignalSocket | undefined;
    let settled = false;
    const finish = (outcome: JoinOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(answerTimer);
      signal.removeEventListener('abort', retry);
      if (outcome !== 'joined') socket?.close('join failed');
      resolve(outcome);
    };
    const retry = () => finish('retry');
    const answerTimer = setTimeout(
      retry,
      Math.max(0, Math.min(JOIN_ANSWER_TIMEOUT_MS, deadline - Date.now())),
    );
    signal.addEventListener('abort', retry);
    try {
      socket = new SignalSocket(eventsUrl);
    } catch {
      finish(ivsError(StageErrorCode.FAILED, StageErrorCategory.JOIN_ERROR, 'bad events URL'));
      return;
    }
    const opened = socket;
    opened.onOpen = () => opened.send({ type: 'join', token, ...(offers ? { offers } : {}) });
    opened.onMessage = (message) => {
      if (message.type === 'joined') {
        finish('joined');
        onJoined(opened, message);
      } else if (message.type === 'error') {
        finish(joinRefused(message.code, message.message, message.details));
      }
    };
    opened.onClose = retry;
  });
}
