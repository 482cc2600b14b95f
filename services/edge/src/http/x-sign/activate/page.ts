/**
 * The activation answer: a small self-contained HTML page (no scripts, no outside resources)
 * that leads into the web console: to its sign-in after a success (the key is in the welcome
 * mail), to its sign-up after a failure.
 */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export function activationPage(ok: boolean, heading: string, detail: string, withLink = true): string {
  const color = ok ? '#1a7f37' : '#b42318';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(heading)}</title>
<style>
body { font-family: system-ui, sans-serif; background: #f6f8fa; margin: 0; padding: 3rem 1rem; }
main { max-width: 32rem; margin: auto; background: #fff; border-radius: 8px; padding: 2rem; border-top: 4px solid ${color}; }
h1 { font-size: 1.4rem; color: ${color}; margin-top: 0; }
a { color: #0b57d0; }
</style>
</head>
<body>
<main>
<h1>${escapeHtml(heading)}</h1>
<p>${escapeHtml(detail)}</p>
${withLink ? `<p>${ok ? '<a href="/console/">Sign in to the console</a> with that key.' : '<a href="/console/signup">Sign up again</a> in the console.'}</p>\n` : ''}</main>
</body>
</html>
`;
}
