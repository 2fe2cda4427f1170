import { Suspense, useEffect, useRef } from 'react';
import { Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import { AppHeader } from '@/components/layout/app-header';
import { ErrorBoundary } from '@/components/error-boundary';
import { PageLoadError } from '@/components/layout/page-load-error';
import { PageLoading } from '@/components/layout/page-loading';
import { paths } from '@/config/paths';
import { clearAuthToken, hasAuthToken } from '@/lib/auth-token';
import { operationsPage } from '@/app/lazy-pages';

/** Protected routes: only a stored token's presence is checked (docs/product.md#route-guard). */
export function ProtectedLayout() {
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const mainRef = useRef<HTMLElement>(null);
  const firstPath = useRef(pathname);

  // After a navigation inside the app, focus moves to the new page's content, as a page load
  // would: a keyboard user goes on from there instead of from a control that is gone.
  useEffect(() => {
    if (pathname !== firstPath.current) mainRef.current?.focus({ preventScroll: true });
    firstPath.current = '';
  }, [pathname]);

  if (!hasAuthToken()) return <Navigate to={paths.signIn.href()} replace />;

  function handleLogout() {
    clearAuthToken();
    void navigate(paths.signIn.href(), { replace: true });
  }

  return (
    <div className="flex min-h-screen flex-col">
      <AppHeader
        homeHref={paths.home.href()}
        operations={{ href: paths.operations.href(), preload: operationsPage.preload }}
        onLogout={handleLogout}
      />
      <main
        ref={mainRef}
        tabIndex={-1}
        className="mx-auto w-full max-w-7xl flex-1 px-4 py-6 outline-none sm:px-6 sm:py-8 lg:px-8"
      >
        {/* A page that loads when first opened (lazy-pages.ts) shows the spinner meanwhile, and
            says so if it cannot load; the next path is shown as usual. */}
        <ErrorBoundary resetKey={pathname} fallback={<PageLoadError />}>
          <Suspense fallback={<PageLoading />}>
            <Outlet />
          </Suspense>
        </ErrorBoundary>
      </main>
    </div>
  );
}
