// Runs before the page paints (a blocking script in <head>, a file so the CSP needs no inline
// script): applies the theme the reader chose, kept in local storage, and marks a session's first
// page for the splash. Anything unreadable means the defaults.
(function () {
  var root = document.documentElement;
  try {
    var theme = localStorage.getItem('archivo-abierto:theme:v1');
    if (theme === 'dark' || (theme === null && matchMedia('(prefers-color-scheme: dark)').matches)) root.classList.add('dark');
  } catch (error) {}
  try {
    if (!sessionStorage.getItem('archivo-abierto:splash')) {
      sessionStorage.setItem('archivo-abierto:splash', '1');
      root.classList.add('show-splash');
    }
  } catch (error) {}
})();
