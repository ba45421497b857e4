// The application menu: quit, reload, full screen, and the edit roles (macOS needs them for
// copy and paste in text fields). Devtools only in development builds.
import type { MenuItemConstructorOptions } from 'electron';

export interface MenuSpec {
  platform: NodeJS.Platform;
  devTools: boolean;
}

export function menuTemplate(spec: MenuSpec): MenuItemConstructorOptions[] {
  const appMenu: MenuItemConstructorOptions = spec.platform === 'darwin' ? { role: 'appMenu' } : { label: 'File', submenu: [{ role: 'quit' }] };
  const developerItems: MenuItemConstructorOptions[] = spec.devTools ? [{ type: 'separator' }, { role: 'toggleDevTools' }] : [];
  const view: MenuItemConstructorOptions = {
    label: 'View',
    submenu: [
      { role: 'reload' },
      { role: 'togglefullscreen' },
      { type: 'separator' },
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      ...developerItems,
    ],
  };
  return [appMenu, { role: 'editMenu' }, view];
}
