// Runs before the page paints (a blocking script in <head>, a file so the CSP needs no inline
// script): applies the theme the reader chose, kept in local storage. Anything unreadable means
// the default.
(function () {
  var root = document.documentElement;
  try {
    var theme = localStorage.getItem('archivo-abierto:theme:v1');
    if (theme === 'dark' || (theme === null && matchMedia('(prefers-color-scheme: dark)').matches)) root.classList.add('dark');
  } catch (error) {}
})();
