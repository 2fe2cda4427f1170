/**
 * The stage as the API finds it at start (decisions 0058 and 0082): waiting for the API's table
 * of token generations, on a free loopback port, closed after each test; and requests to its
 * control routes, as the API makes them (its control token) or with any authorization a test
 * tries.
 */
import { afterEach } from 'vitest';
import { issueStageControlToken, TOKEN_GENERATIONS_PATH } from '@tailcam/protocol/stage-control';
import type { RunningStage } from '../server/start';
import { rawRequest } from './raw-request';
import { startTestStage } from './test-stage';

export interface ControlAnswer {
  status: number;
  text: string;
  /** The answer's WWW-Authenticate. */
  authenticate: string | string[] | undefined;
}

/** Starts, for each test that asks, a stage awaiting its table signed with `secret`. */
export function stagesAwaitingTable(secret: Uint8Array) {
  let running: RunningStage | undefined;
  const asTheApi = async () => `Bearer ${await issueStageControlToken(secret)}`;
  afterEach(async () => {
    await running?.close();
    running = undefined;
  });
  return {
    async start(): Promise<RunningStage> {
      running = await startTestStage({ secret, awaitTokenGenerations: true });
      return running;
    },
    /** The API's authorization: its control token, fresh. */
    asTheApi,
    /** Sends `generations` as the API's whole table, as the API does. */
    async loadTable(
      stage: RunningStage,
      generations: Record<string, number>,
    ): Promise<ControlAnswer> {
      const body = { generations };
      return callStage(stage, 'PUT', TOKEN_GENERATIONS_PATH, body, await asTheApi());
    },
  };
}

/**
 * A request with a JSON body (a string is sent as it is) and `authorization` (none when
 * undefined).
 */
export async function callStage(
  stage: RunningStage,
  method: string,
  path: string,
  body: unknown,
  authorization: string | undefined,
): Promise<ControlAnswer> {
  const answer = await rawRequest(
    stage.url,
    method,
    path,
    {
      'content-type': 'application/json',
      ...(authorization === undefined ? {} : { authorization }),
    },
    body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  );
  return {
    status: answer.status,
    text: answer.text,
    authenticate: answer.headers['www-authenticate'],
  };
}
