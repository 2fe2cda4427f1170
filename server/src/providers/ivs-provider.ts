import {
  CreateParticipantTokenCommand,
  DisconnectParticipantCommand,
  IVSRealTimeClient,
  ListParticipantsCommand,
  ListStageSessionsCommand,
} from '@aws-sdk/client-ivs-realtime';
import type { StreamId } from '@tailcam/protocol/streams';
import { StageProviderError, type StageProvider } from './stage-provider';

const AWS_TIMEOUT_MS = 5_000;

/** Maps any failure of the AWS call to a message safe to show a viewer; the cause is logged. */
export function describeIvsError(error: unknown): string {
  const name = error instanceof Error ? error.name : '';
  const code =
    typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  switch (name) {
    case 'AccessDeniedException':
      return 'The streaming service refused access to this stream';
    case 'ResourceNotFoundException':
      return 'This stream is not set up on the streaming service';
    case 'ValidationException':
      return 'The streaming service rejected the token request';
    case 'PendingVerification':
      return 'The streaming service account is pending verification';
    case 'ServiceQuotaExceededException':
      return 'The streaming service is at capacity; try again later';
    case 'ThrottlingException':
    case 'TooManyRequestsException':
      return 'The streaming service is busy; try again in a moment';
    case 'InternalServerException':
    case 'ServiceUnavailableException':
      return 'The streaming service had an internal error; try again in a moment';
    case 'CredentialsProviderError':
    case 'UnrecognizedClientException':
    case 'InvalidSignatureException':
    case 'ExpiredTokenException':
    case 'InvalidClientTokenId':
      return 'The streaming service is not configured correctly';
    case 'TimeoutError':
    case 'AbortError':
    case 'RequestTimeout':
      return 'The streaming service did not answer in time; try again in a moment';
  }
  if (/^(ECONN|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETUNREACH)/.test(code)) {
    return 'Could not reach the streaming service; try again in a moment';
  }
  return 'Could not get a token from the streaming service';
}

/** What a disconnected viewer's participant is told (IVS keeps it with the participant). */
export const DISCONNECT_REASON = "The viewer's sign-in was ended";

/**
 * Disconnects every connected participant with this user id from the stages' current sessions:
 * IVS filters participants by one thing at a time, so by user id, then by state here. Every stage
 * is tried; the first failure is thrown after.
 */
export async function endIvsSessions(
  options: {
    client: Pick<IVSRealTimeClient, 'send'>;
    stageArns: Partial<Record<StreamId, string>>;
  },
  userId: string,
): Promise<number> {
  const send: Pick<IVSRealTimeClient, 'send'>['send'] = (command, sendOptions?) =>
    options.client.send(command, {
      abortSignal: AbortSignal.timeout(AWS_TIMEOUT_MS),
      ...sendOptions,
    });
  let ended = 0;
  const failures: unknown[] = [];
  for (const stageArn of Object.values(options.stageArns)) {
    try {
      const { stageSessions } = await send(
        new ListStageSessionsCommand({ stageArn, maxResults: 10 }),
      );
      for (const { sessionId } of (stageSessions ?? []).filter((session) => !session.endTime)) {
        let nextToken: string | undefined;
        do {
          const page = await send(
            new ListParticipantsCommand({ stageArn, sessionId, filterByUserId: userId, nextToken }),
          );
          for (const participant of page.participants ?? []) {
            if (participant.state !== 'CONNECTED' || !participant.participantId) continue;
            await send(
              new DisconnectParticipantCommand({
                stageArn,
                participantId: participant.participantId,
                reason: DISCONNECT_REASON,
              }),
            );
            ended += 1;
          }
          nextToken = page.nextToken;
        } while (nextToken);
      }
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw failures[0];
  return ended;
}

export function createIvsStageProvider(options: {
  client: Pick<IVSRealTimeClient, 'send'>;
  stageArns: Partial<Record<StreamId, string>>;
  durationMinutes: number;
}): StageProvider {
  return {
    name: 'ivs',
    async createParticipantToken(request) {
      const stageArn = options.stageArns[request.stageId];
      if (stageArn === undefined) {
        throw new StageProviderError('This stream is not set up on the streaming service');
      }
      let output;
      try {
        output = await options.client.send(
          new CreateParticipantTokenCommand({
            stageArn,
            userId: request.userId,
            capabilities: ['SUBSCRIBE'],
            attributes: { clientId: request.clientId },
            duration: options.durationMinutes,
          }),
          { abortSignal: AbortSignal.timeout(AWS_TIMEOUT_MS) },
        );
      } catch (error) {
        throw new StageProviderError(describeIvsError(error), { cause: error });
      }
      const token = output.participantToken?.token;
      if (token === undefined || token === '') {
        throw new StageProviderError('The streaming service answered without a token');
      }
      return token;
    },
    endUserSessions: ({ userId }) => endIvsSessions(options, userId),
    // IVS has no list of accounts to keep: its tokens are checked by IVS alone.
    accountAdded: async () => undefined,
  };
}

export function createIvsClient(region: string): IVSRealTimeClient {
  return new IVSRealTimeClient({ region, maxAttempts: 2 });
}
