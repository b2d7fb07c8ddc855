import { applyEditTool } from './applyEdit';
import { findFilesTool } from './findFiles';
import { listDirTool } from './listDir';
import { readFileTool } from './readFile';
import { runCommandTool } from './runCommand';
import { searchTextTool } from './searchText';
import type { Tool } from './tool';

/** The tools that act on the workspace, in the order the model is shown them. */
export const WORKSPACE_TOOLS: readonly Tool[] = [readFileTool, listDirTool, findFilesTool, searchTextTool, applyEditTool, runCommandTool];
