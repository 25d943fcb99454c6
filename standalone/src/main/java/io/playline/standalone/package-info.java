/**
 * The {@code bin/playline} command line ({@link io.playline.standalone.PlaylineCli}): standalone mode, every role on
 * one node with embedded real servers ({@link io.playline.standalone.StandaloneLauncher}), tokens, status, config
 * docs; the production roles and their commands are in {@code io.playline.roles}.
 */
@NullMarked
package io.playline.standalone;

import org.jspecify.annotations.NullMarked;
