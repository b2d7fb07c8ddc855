// Mocha's spec output plus a machine-readable tally, so scripts/test.mjs can print one summary
// line over the unit, integration (inside VS Code) and webview suites. The tally goes to the file
// named by AGENT_TAPE_RESULTS (the extension host inherits it from the launcher's environment).
'use strict';
const fs = require('fs');
const Mocha = require('mocha');

class TallyReporter extends Mocha.reporters.Spec {
  constructor(runner, options) {
    super(runner, options);
    runner.once('end', () => {
      const out = process.env.AGENT_TAPE_RESULTS;
      if (!out) return;
      const s = runner.stats || {};
      fs.writeFileSync(out, JSON.stringify({ passed: s.passes || 0, failed: s.failures || 0, skipped: s.pending || 0 }));
    });
  }
}
module.exports = TallyReporter;
