import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useState,
  type ReactNode,
} from 'react';
import { getAuthToken } from '@/lib/auth-token';
import { getParticipantToken } from '../api/get-participant-token';
import { getClientId } from '../lib/client-id';
import { EarlyStageSessions } from '../lib/early-stage-sessions';
import { ParticipantTokenPrefetcher } from '../lib/participant-token-prefetch';
import { createPlayerSession } from '../lib/player-session';
import { sdkHasStandby } from '../lib/stage-sdk';

interface JoinHeadStart {
  prefetcher: ParticipantTokenPrefetcher;
  earlySessions: EarlyStageSessions;
}

const HeadStartContext = createContext<JoinHeadStart | null>(null);

/**
 * What the routes under it do ahead of a player's join, for the player to take: sessions started
 * on intent and by the click that opens a player (early-stage-sessions.ts, decisions 0057, 0091),
 * and participant tokens fetched on an intent that starts no join (decision 0040). The stream grid starts them, the player takes them. One per app,
 * never module state.
 */
export function ParticipantTokenPrefetchProvider({ children }: { children: ReactNode }) {
  const [headStart] = useState<JoinHeadStart>(() => {
    const prefetcher = new ParticipantTokenPrefetcher(
      (stageId, signal) => getParticipantToken({ stageId, clientId: getClientId() }, signal),
      getAuthToken,
    );
    const earlySessions = new EarlyStageSessions((stageId) =>
      createPlayerSession(stageId, prefetcher),
    );
    return { prefetcher, earlySessions };
  });
  useEffect(
    () => () => {
      headStart.earlySessions.clear();
      headStart.prefetcher.clear();
    },
    [headStart],
  );
  return <HeadStartContext.Provider value={headStart}>{children}</HeadStartContext.Provider>;
}

/**
 * `(stageId) => void`: the viewer may open this stream (a press, the focus it gives). A no-op
 * without the provider, and while a session started for it waits (a mouse's press started it;
 * the focus that follows the press would otherwise fetch a token nobody takes).
 */
export function usePrefetchParticipantToken(): (stageId: string) => void {
  const headStart = useContext(HeadStartContext);
  return useCallback(
    (stageId: string) => {
      if (headStart && !headStart.earlySessions.has(stageId))
        headStart.prefetcher.prefetch(stageId);
    },
    [headStart],
  );
}

export interface JoinIntent {
  /**
   * The viewer is about to open these streams (a mouse rests on a card or on 'Watch all', or the
   * keyboard's focus is on it): each one's join starts now (decision 0091), or, beyond the cap or the minute's
   * budget, its participant token is fetched (decision 0040).
   */
  intend: (stageIds: readonly string[]) => void;
  /** The intent went (the pointer left, the focus moved): the joins it started are left. */
  forgo: (stageIds: readonly string[]) => void;
  /** The page that showed the streams went: every join an intent or the page started is left. */
  forgoAll: () => void;
  /** The viewer shows a sign of life on a page of these streams: each joins on standby (0112). */
  standBy: (stageIds: readonly string[]) => void;
}

/** The joins started on intent, and their end. No-ops without the provider. */
export function useJoinIntent(): JoinIntent {
  const headStart = useContext(HeadStartContext);
  return useMemo(
    () => ({
      intend: (stageIds) => {
        if (!headStart) return;
        // A stream whose join waits (the intent's, or a press's) fetches no second token.
        for (const stageId of headStart.earlySessions.intend(stageIds)) {
          headStart.prefetcher.prefetch(stageId);
        }
      },
      forgo: (stageIds) => headStart?.earlySessions.forgo(stageIds),
      forgoAll: () => headStart?.earlySessions.forgoAll(),
      standBy: (stageIds) => {
        if (sdkHasStandby()) headStart?.earlySessions.standBy(stageIds);
      },
    }),
    [headStart],
  );
}

/** `(stageId) => void`: the viewer opens this stream's player now. A no-op without the provider. */
export function useStartEarlySession(): (stageId: string) => void {
  const headStart = useContext(HeadStartContext);
  return useCallback((stageId: string) => headStart?.earlySessions.start(stageId), [headStart]);
}

/** The prefetcher the player takes its first token from, if the app provides one. */
export function useParticipantTokenPrefetcher(): ParticipantTokenPrefetcher | null {
  return useContext(HeadStartContext)?.prefetcher ?? null;
}

/** The sessions started for players about to render, if the app provides them. */
export function useEarlyStageSessions(): EarlyStageSessions | null {
  return useContext(HeadStartContext)?.earlySessions ?? null;
}
