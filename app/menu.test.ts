import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import { menuTemplate } from './menu.ts';

/** Every role in the menu, submenus included. */
function rolesOf(items: MenuItemConstructorOptions[]): string[] {
  return items.flatMap((item) => [...(item.role ? [item.role] : []), ...(Array.isArray(item.submenu) ? rolesOf(item.submenu) : [])]);
}

describe('the application menu', () => {
  it.each(['linux', 'win32'] as const)('offers Quit, Reload and Toggle Fullscreen on %s', (platform) => {
    const roles = rolesOf(menuTemplate({ platform, devTools: false }));

    expect(roles).toEqual(expect.arrayContaining(['quit', 'reload', 'togglefullscreen']));
  });

  it('puts Quit in the app menu on macOS', () => {
    const roles = rolesOf(menuTemplate({ platform: 'darwin', devTools: false }));

    expect(roles).toEqual(expect.arrayContaining(['appMenu', 'reload', 'togglefullscreen']));
  });

  it('offers devtools only in development builds', () => {
    expect(rolesOf(menuTemplate({ platform: 'linux', devTools: false }))).not.toContain('toggleDevTools');
    expect(rolesOf(menuTemplate({ platform: 'linux', devTools: true }))).toContain('toggleDevTools');
  });
});
