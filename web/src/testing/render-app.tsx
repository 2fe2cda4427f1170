import { render } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, useLocation } from 'react-router';
import { AppRoutes } from '@/app/router';

/** Shows the current path, so tests can assert where the app went. */
function LocationProbe() {
  const location = useLocation();
  return <output data-testid="location">{location.pathname}</output>;
}

export function renderApp(initialPath: string) {
  const user = userEvent.setup();
  const view = render(
    <MemoryRouter initialEntries={[initialPath]}>
      <AppRoutes />
      <LocationProbe />
    </MemoryRouter>,
  );
  return { user, ...view };
}
