/**
 * The {@code bin/playline} entry point ({@link io.playline.standalone.PlaylineCli}) and standalone mode, every role on
 * one node with embedded real servers ({@link io.playline.standalone.StandaloneLauncher}), with the commands that run
 * what this package holds ({@code standalone}, {@code config-docs}); the other commands are in
 * {@code io.playline.standalone.cli}, which does not use this package, the production roles and their commands in
 * {@code io.playline.roles}.
 */
@NullMarked
package io.playline.standalone;

import org.jspecify.annotations.NullMarked;
