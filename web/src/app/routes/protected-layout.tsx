import { Navigate, Outlet, useNavigate } from 'react-router';
import { AppHeader } from '@/components/layout/app-header';
import { paths } from '@/config/paths';
import { clearAuthToken, hasAuthToken } from '@/lib/auth-token';

/** Protected routes: only the presence of a stored token is checked (SPEC.md §2). */
export function ProtectedLayout() {
  const navigate = useNavigate();
  if (!hasAuthToken()) return <Navigate to={paths.signIn.href()} replace />;

  function handleLogout() {
    clearAuthToken();
    void navigate(paths.signIn.href(), { replace: true });
  }

  return (
    <div className="flex min-h-screen flex-col">
      <AppHeader homeHref={paths.home.href()} onLogout={handleLogout} />
      <main className="mx-auto w-full max-w-7xl flex-1 px-4 py-6 sm:px-6 sm:py-8 lg:px-8">
        <Outlet />
      </main>
    </div>
  );
}
