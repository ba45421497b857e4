// Entry point: read the access token from the URL's hash, take it out of the visible URL, and start
// the cockpit against the core that served this page.
import { mount } from 'svelte';
import './app.css';
import App from './App.svelte';
import MissingToken from './components/MissingToken.svelte';
import { openBrowserSocket } from './lib/browserSocket.ts';
import { Cockpit } from './lib/cockpit.svelte.ts';
import { systemClock } from './lib/clock.ts';
import { coreSocketUrl, hashWithoutToken, tokenFromHash } from './lib/socketUrl.ts';

const target = document.getElementById('app');
if (!target) throw new Error('index.html has no #app element');

const TOKEN_KEY = 'reins.token';
const token = tokenFromHash(location.hash) ?? sessionStorage.getItem(TOKEN_KEY) ?? undefined;
if (token) {
  // Out of the address bar, history and screenshots; kept for this tab only, so a reload reconnects.
  sessionStorage.setItem(TOKEN_KEY, token);
  history.replaceState(history.state, '', `${location.pathname}${location.search}${hashWithoutToken(location.hash)}`);
  const fetchCore = (path: string) => fetch(path, { headers: { authorization: `Bearer ${token}` }, cache: 'no-store' });
  const cockpit = new Cockpit(coreSocketUrl(location, token), openBrowserSocket, systemClock, fetchCore, { origin: location.origin, token });
  cockpit.start();
  mount(App, { target, props: { cockpit } });
} else {
  mount(MissingToken, { target });
}
