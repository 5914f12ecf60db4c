import { Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import { CenteredSpinner } from './CenteredSpinner';

export function LazyPage({ page: Page }: { page: LazyExoticComponent<ComponentType> }) {
  return (
    <Suspense fallback={<CenteredSpinner />}>
      <Page />
    </Suspense>
  );
}
