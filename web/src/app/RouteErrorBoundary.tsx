import { Component, type ReactNode } from 'react';
import { RouteError } from '../components/RouteError';

interface Props {
  /** The page's path: an error belongs to the screen that threw it, so another screen starts clean. */
  path: string;
  children: ReactNode;
}

interface State {
  error: unknown;
  path: string;
  failed: boolean;
}

/**
 * What the data router's `errorElement` did, for the declarative router the app uses (App.tsx): a
 * screen that fails to render, or a lazy chunk that cannot load, shows RouteError instead of a
 * blank page.
 */
export class RouteErrorBoundary extends Component<Props, State> {
  override state: State = { error: null, path: this.props.path, failed: false };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error, failed: true };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    return props.path === state.path ? null : { error: null, failed: false, path: props.path };
  }

  override render() {
    return this.state.failed ? <RouteError error={this.state.error} /> : this.props.children;
  }
}
