import { execFileSync } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { launchChromium, launchChromiumContext, screenshotPath } from './browser.ts';
import { REPO_ROOT } from './local.ts';

describe("Debian's chromium through the testkit", () => {
  it('launches headless and renders a page', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.setContent('<p>Terre de Cèdre</p>');
      expect(await page.textContent('p')).toBe('Terre de Cèdre');
    } finally {
      await browser.close();
    }
  });

  it('gives a context a profile of its own, with its options, and removes the profile on close', async () => {
    const context = await launchChromiumContext({ viewport: { width: 321, height: 201 } });
    const page = context.pages()[0] ?? (await context.newPage());
    expect(page.viewportSize()).toEqual({ width: 321, height: 201 });
    // chromium names the profile it runs with on its own version page.
    await page.goto('chrome://version');
    const profile = dirname((await page.textContent('#profile_path')) ?? '');
    expect(profile.startsWith(join(tmpdir(), 'chromium-profile-'))).toBe(true);
    expect(existsSync(profile)).toBe(true);
    await context.close();
    expect(existsSync(profile)).toBe(false);
  });

  it('never throws from the close event when the profile cannot be removed yet; close() removes it', async () => {
    const context = await launchChromiumContext();
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto('chrome://version');
    const profile = dirname((await page.textContent('#profile_path')) ?? '');
    // An immutable file stands in for chromium still writing into the profile: removal fails
    // (EPERM, as ENOTEMPTY does in the race) while the 'close' event is emitted.
    const stuck = join(profile, 'still-being-written');
    writeFileSync(stuck, '');
    execFileSync('chattr', ['+i', stuck]);
    try {
      // playwright's public type hides emit; its client context is a Node EventEmitter.
      const events = context as unknown as EventEmitter;
      expect(() => events.emit('close', context)).not.toThrow();
    } finally {
      execFileSync('chattr', ['-i', stuck]);
    }
    await context.close();
    expect(existsSync(profile)).toBe(false);
  });

  it('keeps screenshots under .local/screenshots, creating the folder', () => {
    const path = screenshotPath('testkit.png');
    expect(path).toBe(`${REPO_ROOT}.local/screenshots/testkit.png`);
    expect(existsSync(dirname(path))).toBe(true);
  });
});
