import { chromium } from 'playwright';
const [url, out, width = '375', height = '800'] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
const page = await browser.newPage({ viewport: { width: +width, height: +height } });
await page.goto(url!, { waitUntil: 'networkidle' });
await page.screenshot({ path: out!, fullPage: false });
await browser.close();
