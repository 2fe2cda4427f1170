import { Plane } from 'lucide-react';
import { useNavigate } from 'react-router';
import { paths } from '@/config/paths';
import { uiText } from '@/config/ui-text';
import { useDocumentTitle } from '@/lib/use-document-title';
import { LoginForm } from '@/features/auth/components/login-form';
import { setAuthToken } from '@/lib/auth-token';

export function SignInRoute() {
  const navigate = useNavigate();
  useDocumentTitle(uiText.signIn.documentTitle);

  function handleSuccess(token: string) {
    setAuthToken(token);
    void navigate(paths.home.href(), { replace: true });
  }

  return (
    <main className="flex min-h-screen items-center justify-center bg-radial-[ellipse_at_top] from-sky-900/70 via-slate-950 to-slate-950 px-4 py-12">
      <div className="w-full max-w-sm">
        <div className="mb-8 flex flex-col items-center text-center">
          <span className="mb-4 flex size-12 items-center justify-center rounded-xl bg-sky-500 text-slate-950 shadow-lg shadow-sky-500/30">
            <Plane aria-hidden="true" className="size-6" />
          </span>
          <h1 className="text-2xl font-bold tracking-tight text-white">{uiText.signIn.title}</h1>
          <p className="mt-1 text-sm text-slate-400">{uiText.signIn.subtitle}</p>
        </div>
        <div className="rounded-2xl border border-slate-800 bg-slate-900/80 p-6 shadow-2xl shadow-black/40 backdrop-blur sm:p-8">
          <LoginForm onSuccess={handleSuccess} />
        </div>
      </div>
    </main>
  );
}
