// Loaded by `npm start` only (scripts/start.mjs), beside Agent Tape: VS Code opens an installed
// extension's walkthrough on install, never a development extension's, and Agent Tape itself
// activates lazily, so it cannot open it at start-up without giving that up.
const vscode = require('vscode');

const WALKTHROUGH = 'agent-tape.agent-tape#agentTape.firstRun';
const SHOWN = 'agentTape.walkthroughShown';

async function activate(context) {
  // Once per profile: npm start reuses its profile, so a second start opens the workbench as it was left.
  if (context.globalState.get(SHOWN) === true) return;
  await vscode.commands.executeCommand('workbench.action.openWalkthrough', WALKTHROUGH, false);
  await context.globalState.update(SHOWN, true);
}

module.exports = { activate };
