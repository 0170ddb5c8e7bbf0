/* list.c: a singly linked list of words. */
#include <stdlib.h>
#include <string.h>

/* One word and the next. */
typedef struct {
	char *word;
	struct node *next;
} node;

static const char *const stop_words[] = {
	"a", "an", "the",
};

/* Pushes a copy of word in front of head.
 * Returns the new head, or NULL when out of memory. */
node *
list_push(node *head, const char *word)
{
	node *n = malloc(sizeof *n);
	if (n == NULL)
		return NULL;
	n->word = strdup(word);
	n->next = head;
	return n;
}

int list_len(const node *head);

int list_len(const node *head) {
	int n = 0;
	for (; head; head = head->next)
		n++;
	return n;
}
