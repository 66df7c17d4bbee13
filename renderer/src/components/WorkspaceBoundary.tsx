import type { ErrorInfo, ReactNode } from 'react';
import { Component } from 'react';

/** Props of WorkspaceBoundary: the workspace's name as the person knows it ("Progress"), and the workspace. */
export interface WorkspaceBoundaryProps {
  name: string;
  children: ReactNode;
}

/**
 * Keeps a failure of one workspace in that workspace: the top bar, the tabs and the other
 * workspaces stay usable, and the place where it failed says what failed and offers to try again
 * (React's error boundary; a class, since React offers boundaries only as classes). Nothing a
 * person entered elsewhere is lost: other workspaces are not re-mounted.
 */
export class WorkspaceBoundary extends Component<WorkspaceBoundaryProps, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    // The renderer's console is the window's log; the stack helps support, the message the person.
    console.error(`The ${this.props.name} workspace failed:`, error, info.componentStack);
  }

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <main className="records">
        <section className="panel" role="alert" data-testid="workspace-failed">
          <h2>The {this.props.name} workspace could not be shown</h2>
          <p>
            {error.message}. The other tabs still work. Try again; if it fails again, restart the app and tell support
            what this says.
          </p>
          <button onClick={() => this.setState({ error: null })}>Try again</button>
        </section>
      </main>
    );
  }
}
