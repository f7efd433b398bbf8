#!/usr/bin/env node
// The operator's command line. `npm install` builds dist/ (the `prepare` script).
import '../dist/cli/main.js';
