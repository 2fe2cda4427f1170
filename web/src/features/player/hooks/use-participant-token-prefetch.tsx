import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { getAuthToken } from '@/lib/auth-token';
import { getParticipantToken } from '../api/get-participant-token';
import { getClientId } from '../lib/client-id';
import { ParticipantTokenPrefetcher } from '../lib/participant-token-prefetch';

const PrefetcherContext = createContext<ParticipantTokenPrefetcher | null>(null);

/**
 * Holds the participant tokens fetched ahead of a join (decision 0040) for the routes under it:
 * the stream grid prefetches, the player takes. One per app, never module state.
 */
export function ParticipantTokenPrefetchProvider({ children }: { children: ReactNode }) {
  const [prefetcher] = useState(
    () =>
      new ParticipantTokenPrefetcher(
        (stageId, signal) => getParticipantToken({ stageId, clientId: getClientId() }, signal),
        getAuthToken,
      ),
  );
  useEffect(() => () => prefetcher.clear(), [prefetcher]);
  return <PrefetcherContext.Provider value={prefetcher}>{children}</PrefetcherContext.Provider>;
}

/** `(stageId) => void`: the viewer is about to open this stream. A no-op without the provider. */
export function usePrefetchParticipantToken(): (stageId: string) => void {
  const prefetcher = useContext(PrefetcherContext);
  return useCallback((stageId: string) => prefetcher?.prefetch(stageId), [prefetcher]);
}

/** The prefetcher the player takes its first token from, if the app provides one. */
export function useParticipantTokenPrefetcher(): ParticipantTokenPrefetcher | null {
  return useContext(PrefetcherContext);
}
