import { getParticipantToken } from '../api/get-participant-token';
import { getClientId } from './client-id';
import { firstFetchUsing, type ParticipantTokenPrefetcher } from './participant-token-prefetch';
import { getStageSdk } from './stage-sdk';
import { StageSession, type VideoView } from './stage-session';

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

/**
 * A player's hold on its session: made when the player mounts, for a session new or started by
 * the click (early-stage-sessions.ts); from then on the session's video goes to `view`, the
 * video it shows already at once.
 */
export class PlayerVideo {
  constructor(
    readonly session: StageSession,
    view: VideoView,
  ) {
    session.showIn(view);
  }
}
