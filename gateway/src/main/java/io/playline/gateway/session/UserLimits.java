package io.playline.gateway.session;

import io.playline.gateway.budget.AuthRefusalHold;
import io.playline.gateway.budget.UserBudgets;
import io.playline.node.edge.ConnectionLimiter;
import io.playline.proto.v1.Error;
import org.jspecify.annotations.Nullable;

/**
 * What one user may do through this node's connections, as a session asks it: authenticate (the
 * user's auths budget), keep a connection open ({@code connection.max.per.user}; an open connection
 * shares the user's budgets) and delete (the user's deletes budget). In production {@link #of} the
 * node's {@link UserBudgets} and {@link ConnectionLimiter}. Thread-safe.
 */
public interface UserLimits {
  /** Takes one authentication from {@code uid}'s budget: null when granted, else the refusal to send. */
  @Nullable Error takeAuth(long uid);

  /** How long a refusal of {@link #takeAuth} is held back before it is answered. */
  AuthRefusalHold authRefusalHold();

  /**
   * Counts one more open connection of {@code uid}: when admitted (pair it with one {@link #release}),
   * the user's account its heartbeats are charged to; else why not, and nothing is counted.
   */
  Admission admit(long uid);

  /** What {@link #admit} answered. */
  sealed interface Admission {}

  /** The connection is counted; its heartbeats are charged to {@code account} until its {@link #release}. */
  record Admitted(UserBudgets.Account account) implements Admission {}

  /** The connection is not counted: {@code why} (client-safe). */
  record Refused(String why) implements Admission {}

  /** A connection {@link #admit} counted is closed. */
  void release(long uid);

  /** Takes {@code deletes} from {@code uid}'s deletes budget: null when granted, else the refusal to send. */
  @Nullable Error takeDeletes(long uid, int deletes);

  /** The node's user budgets and per-user connection cap. */
  static UserLimits of(UserBudgets budgets, ConnectionLimiter limiter) {
    return new UserLimits() {
      @Override
      public @Nullable Error takeAuth(long uid) {
        return budgets.takeAuth(uid);
      }

      @Override
      public AuthRefusalHold authRefusalHold() {
        return budgets.authRefusalHold();
      }

      @Override
      public Admission admit(long uid) {
        if (!limiter.admitUser(uid)) {
          return new Refused("more than " + limiter.maxPerUser() + " connections of this user on this node");
        }
        return new Admitted(budgets.join(uid));
      }

      @Override
      public void release(long uid) {
        limiter.releaseUser(uid);
        budgets.leave(uid);
      }

      @Override
      public @Nullable Error takeDeletes(long uid, int deletes) {
        return budgets.takeDeletes(uid, deletes);
      }
    };
  }
}
