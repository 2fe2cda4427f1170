import { describe, expect, it } from 'vitest';
import { mockClient } from 'aws-sdk-client-mock';
import {
  AccessDeniedException,
  CreateParticipantTokenCommand,
  DisconnectParticipantCommand,
  IVSRealTimeClient,
  InternalServerException,
  ListParticipantsCommand,
  ListStageSessionsCommand,
  PendingVerification,
  ResourceNotFoundException,
  ServiceQuotaExceededException,
  ValidationException,
} from '@aws-sdk/client-ivs-realtime';
import { build, CLIENT_ID } from '../test/helpers';
import { createIvsStageProvider } from './ivs-provider';
import { StageProviderError } from './stage-provider';

const stageArns = {
  N743AS: 'arn:aws:ivs:us-east-1:123456789012:stage/AbCdEf123456',
  N953AS: 'arn:aws:ivs:us-east-1:123456789012:stage/GhIjKl123456',
  N954AS: 'arn:aws:ivs:us-east-1:123456789012:stage/MnOpQr123456',
};
const request = {
  stageId: 'N953AS' as const,
  userId: '3dc3aed5-73e3-4236-9dd0-f15c25193cf5',
  username: 'alice',
  tokenGeneration: 0,
  clientId: CLIENT_ID,
};
const meta = { $metadata: {}, message: 'internal detail: account 123456789012' };

function provider() {
  const client = new IVSRealTimeClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'secret' },
  });
  const mock = mockClient(client);
  return { mock, provider: createIvsStageProvider({ client, stageArns, durationMinutes: 45 }) };
}

async function publicMessageOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof StageProviderError) return error.publicMessage;
    throw error;
  }
  throw new Error('expected a failure');
}

function namedError(name: string, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(`${name}: internal detail`), { name, ...extra });
}

describe('IVS stage provider', () => {
  it('asks IVS for a subscribe-only token on the mapped stage with the user, client and duration', async () => {
    const { mock, provider: ivs } = provider();
    mock.on(CreateParticipantTokenCommand).resolves({
      participantToken: { token: 'ivs-participant-token', participantId: 'p-1' },
    });
    expect(await ivs.createParticipantToken(request)).toBe('ivs-participant-token');
    const calls = mock.commandCalls(CreateParticipantTokenCommand);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.args[0].input).toEqual({
      stageArn: stageArns.N953AS,
      userId: request.userId,
      capabilities: ['SUBSCRIBE'],
      attributes: { clientId: CLIENT_ID },
      duration: 45,
    });
  });

  it.each([
    [new AccessDeniedException(meta), 'The streaming service refused access to this stream'],
    [new ResourceNotFoundException(meta), 'This stream is not set up on the streaming service'],
    [new ValidationException(meta), 'The streaming service rejected the token request'],
    [new PendingVerification(meta), 'The streaming service account is pending verification'],
    [
      new ServiceQuotaExceededException(meta),
      'The streaming service is at capacity; try again later',
    ],
    [
      new InternalServerException(meta),
      'The streaming service had an internal error; try again in a moment',
    ],
    [namedError('ThrottlingException'), 'The streaming service is busy; try again in a moment'],
    [namedError('CredentialsProviderError'), 'The streaming service is not configured correctly'],
    [
      namedError('UnrecognizedClientException'),
      'The streaming service is not configured correctly',
    ],
    [
      namedError('TimeoutError'),
      'The streaming service did not answer in time; try again in a moment',
    ],
    [
      namedError('Error', { code: 'ECONNREFUSED' }),
      'Could not reach the streaming service; try again in a moment',
    ],
    [
      namedError('Error', { code: 'ENOTFOUND' }),
      'Could not reach the streaming service; try again in a moment',
    ],
    [namedError('SomethingNew'), 'Could not get a token from the streaming service'],
  ])('maps %s to a safe message', async (error, message) => {
    const { mock, provider: ivs } = provider();
    mock.on(CreateParticipantTokenCommand).rejects(error);
    const publicMessage = await publicMessageOf(ivs.createParticipantToken(request));
    expect(publicMessage).toBe(message);
    expect(publicMessage).not.toMatch(/123456789012|internal detail/);
  });

  it('fails safely when IVS answers without a token', async () => {
    const { mock, provider: ivs } = provider();
    mock.on(CreateParticipantTokenCommand).resolves({});
    expect(await publicMessageOf(ivs.createParticipantToken(request))).toBe(
      'The streaming service answered without a token',
    );
  });

  it('answers the route with 200 and the IVS token, or 502 with the safe message', async () => {
    const { mock, provider: ivs } = provider();
    mock
      .on(CreateParticipantTokenCommand)
      .resolvesOnce({ participantToken: { token: 'ivs-token' } })
      .rejects(new AccessDeniedException(meta));
    const { app, addUser, login } = await build({
      config: { stageProvider: 'ivs' },
      deps: { stageProvider: ivs },
    });
    await addUser('alice', 'correct horse');
    const token = await login('alice', 'correct horse');
    const inject = () =>
      app.inject({
        method: 'POST',
        url: '/api/token',
        headers: { authorization: `Bearer ${token}` },
        payload: { stageId: 'N743AS', clientId: CLIENT_ID },
      });
    const ok = await inject();
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ token: 'ivs-token' });
    const failed = await inject();
    expect(failed.statusCode).toBe(502);
    expect(failed.json()).toEqual({ error: 'The streaming service refused access to this stream' });
  });
});

describe('IVS stage provider: ending a user’s sessions', () => {
  it("disconnects the user's connected participants from each stage's live session, page by page", async () => {
    const { mock, provider: ivs } = provider();
    mock
      .on(ListStageSessionsCommand)
      .resolves({ stageSessions: [] })
      .on(ListStageSessionsCommand, { stageArn: stageArns.N743AS })
      .resolves({
        stageSessions: [
          { sessionId: 'st-live', startTime: new Date() },
          { sessionId: 'st-old', startTime: new Date(0), endTime: new Date(1) },
        ],
      });
    mock
      .on(ListParticipantsCommand, { sessionId: 'st-live', nextToken: undefined })
      .resolves({
        participants: [
          { participantId: 'p-1', userId: request.userId, state: 'CONNECTED' },
          { participantId: 'p-0', userId: request.userId, state: 'DISCONNECTED' },
        ],
        nextToken: 'page-2',
      })
      .on(ListParticipantsCommand, { sessionId: 'st-live', nextToken: 'page-2' })
      .resolves({
        participants: [{ participantId: 'p-2', userId: request.userId, state: 'CONNECTED' }],
      });
    mock.on(DisconnectParticipantCommand).resolves({});

    expect(await ivs.endUserSessions({ userId: request.userId, tokenGeneration: 1 })).toBe(2);
    expect(mock.commandCalls(ListStageSessionsCommand)).toHaveLength(3);
    const listed = mock.commandCalls(ListParticipantsCommand).map((call) => call.args[0].input);
    expect(listed.map((input) => [input.sessionId, input.filterByUserId])).toEqual([
      ['st-live', request.userId],
      ['st-live', request.userId],
    ]);
    expect(
      mock.commandCalls(DisconnectParticipantCommand).map((call) => call.args[0].input),
    ).toEqual([
      {
        stageArn: stageArns.N743AS,
        participantId: 'p-1',
        reason: "The viewer's sign-in was ended",
      },
      {
        stageArn: stageArns.N743AS,
        participantId: 'p-2',
        reason: "The viewer's sign-in was ended",
      },
    ]);
  });

  it('tries every stage when one fails, then reports the failure', async () => {
    const { mock, provider: ivs } = provider();
    mock
      .on(ListStageSessionsCommand)
      .resolves({ stageSessions: [{ sessionId: 'st-live' }] })
      .on(ListStageSessionsCommand, { stageArn: stageArns.N743AS })
      .rejects(new AccessDeniedException(meta));
    mock.on(ListParticipantsCommand).resolves({
      participants: [{ participantId: 'p-9', userId: request.userId, state: 'CONNECTED' }],
    });
    mock.on(DisconnectParticipantCommand).resolves({});
    await expect(
      ivs.endUserSessions({ userId: request.userId, tokenGeneration: 1 }),
    ).rejects.toBeInstanceOf(AccessDeniedException);
    expect(mock.commandCalls(DisconnectParticipantCommand)).toHaveLength(2);
  });
});
