import { existsSync } from 'node:fs';
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

  it('keeps screenshots under .local/screenshots, creating the folder', () => {
    const path = screenshotPath('testkit.png');
    expect(path).toBe(`${REPO_ROOT}.local/screenshots/testkit.png`);
    expect(existsSync(dirname(path))).toBe(true);
  });
});
