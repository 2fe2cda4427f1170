import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { paths } from '@/config/paths';
import { ParticipantTokenPrefetchProvider } from '@/features/player/hooks/use-participant-token-prefetch';
import { HomeRoute } from './routes/home';
import { PlayerRoute } from './routes/player';
import { ProtectedLayout } from './routes/protected-layout';
import { SignInRoute } from './routes/sign-in';
import { operationsPage, recordingsPage, watchAllPage } from './lazy-pages';

/**
 * The route table of docs/product.md#routes. Declarative mode: the app loads no data through the
 * router. Sign-in, /home and the player come with the first load; other pages load when first
 * opened (lazy-pages.ts), under the protected layout's spinner. The token prefetcher (decision 0040) lives beside it, so the grid and the player share
 * one.
 */
export function AppRoutes() {
  return (
    <ParticipantTokenPrefetchProvider>
      <Routes>
        <Route path={paths.signIn.path} element={<SignInRoute />} />
        <Route element={<ProtectedLayout />}>
          <Route path={paths.home.path} element={<HomeRoute />} />
          <Route path={paths.player.path} element={<PlayerRoute />} />
          <Route path={paths.watchAll.path} element={<watchAllPage.Page />} />
          <Route path={paths.recordings.path} element={<recordingsPage.Page />} />
          <Route path={paths.operations.path} element={<operationsPage.Page />} />
          {/* `/player/` without a stream id: the player needs one (docs/product.md#routes). */}
          <Route path="/player" element={<Navigate to={paths.home.href()} replace />} />
        </Route>
        <Route path="*" element={<Navigate to={paths.home.href()} replace />} />
      </Routes>
    </ParticipantTokenPrefetchProvider>
  );
}

export function AppRouter() {
  return (
    <BrowserRouter useTransitions={false}>
      <AppRoutes />
    </BrowserRouter>
  );
}
