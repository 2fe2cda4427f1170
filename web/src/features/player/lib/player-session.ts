import { getParticipantToken } from '../api/get-participant-token';
import { getClientId } from './client-id';
import { firstFetchUsing, type ParticipantTokenPrefetcher } from './participant-token-prefetch';
import { getStageSdk } from './stage-sdk';
import { StageSession } from './stage-session';

/**
 * A player's session with `stageId`, not started: its first join takes a token fetched ahead
 * (decision 0040) when there is one; where its video goes is the player's (`showIn`).
 */
export function createPlayerSession(
  stageId: string,
  prefetcher: ParticipantTokenPrefetcher | null,
): StageSession {
  return new StageSession({
    stageId,
    getSdk: getStageSdk,
    fetchParticipantToken: firstFetchUsing(prefetcher?.take(stageId), (id, signal) =>
      getParticipantToken({ stageId: id, clientId: getClientId() }, signal),
    ),
  });
}
