import { APP_NAME } from '../../shared/app-info.js';

/** The application's top-level screen. */
export function App() {
  return (
    <main>
      <h1>{APP_NAME}</h1>
      <p>Drop Insta360 recordings here to register and upload them as captures.</p>
    </main>
  );
}
