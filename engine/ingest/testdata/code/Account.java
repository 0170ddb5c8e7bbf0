package bank;

import java.util.ArrayList;
import java.util.List;

/**
 * An account and its history.
 */
public class Account {
    private final List<Long> history = new ArrayList<>();
    private long balance;

    /** Creates an empty account. */
    public Account() {
    }

    /**
     * Deposits cents; a negative amount is refused.
     */
    public void deposit(long cents) {
        if (cents < 0) {
            throw new IllegalArgumentException("negative deposit");
        }
        balance += cents;
        history.add(cents);
    }

    @Override
    public String toString() {
        return "Account(" + balance + ")";
    }

    /** What an account reports to. */
    public interface Listener {
        void changed(Account a);
    }
}
