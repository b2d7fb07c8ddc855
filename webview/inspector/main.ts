import { Inspector } from './inspector';

const root = document.getElementById('app') as HTMLElement;
// The shell marks #app as a live region for the small About page; here it would read out every
// row the list draws while scrolling. The inspector's own status lines are live regions instead.
root.removeAttribute('aria-live');
new Inspector(root);
